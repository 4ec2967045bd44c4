import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DOCUMENTS } from "../../support/documents";

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const headings = [...markdown.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.replace(/`/g, ""));
  return new Set(
    headings.map((h) =>
      h
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );
}

/** Relative links whose file or heading does not exist (fenced code is not Markdown, so skipped). */
function brokenLinks(markdown: string, docPath: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "");
  const targets = [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
  return targets.filter((target) => {
    const [file, anchor] = target.split("#");
    const resolved = file ? path.resolve(path.dirname(docPath), file) : docPath;
    if (!existsSync(resolved)) return true;
    return anchor !== undefined && !anchors(readFileSync(resolved, "utf8")).has(anchor);
  });
}

describe("links between the documents", () => {
  it.each(DOCUMENTS)("%s links only to files and headings that exist", (file) => {
    expect(brokenLinks(readFileSync(file, "utf8"), path.resolve(file))).toEqual([]);
  });

  it("finds a missing file, a missing heading, and ignores links in code", () => {
    const doc = path.resolve("docs/errors.md");
    expect(brokenLinks("[x](url-format.md#no-such-heading) [y](nowhere.md) [z](url-format.md#signature)", doc)).toEqual(
      ["url-format.md#no-such-heading", "nowhere.md"],
    );
    expect(brokenLinks("```ts\nconst a = [b](c);\n```", doc)).toEqual([]);
  });
});

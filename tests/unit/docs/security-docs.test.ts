import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DOCS = path.join(ROOT, "docs");
const doc = readFileSync(path.join(DOCS, "security.md"), "utf8");

interface Citation {
  line: number;
  /** Repository-relative path of the linked file. */
  file: string;
  /** Test names cited in backticks after the link, up to the next link on the same line. */
  names: string[];
}

const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

/** Relative links of the document, each with the backticked names that follow it on its line. */
function citations(markdown: string): Citation[] {
  const found: Citation[] = [];
  markdown.split("\n").forEach((text, index) => {
    const links = [...text.matchAll(LINK)];
    links.forEach((match, i) => {
      const target = match[1]!.split("#")[0]!;
      if (target === "" || /^[a-z]+:/i.test(target)) return;
      const after = text.slice(match.index! + match[0].length, links[i + 1]?.index ?? text.length);
      found.push({
        line: index + 1,
        file: path.relative(ROOT, path.resolve(DOCS, target)),
        names: [...after.matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
      });
    });
  });
  return found;
}

/** A test or suite title appears in the file as a string literal. */
function hasTitle(source: string, name: string): boolean {
  return [`"${name}"`, `'${name}'`, `\`${name}\``].some((literal) => source.includes(literal));
}

const cited = citations(doc);
const testLinks = cited.filter((c) => c.file.startsWith(`tests${path.sep}`));

describe("docs/security.md", () => {
  it("links test files for its invariants", () => {
    expect(testLinks.length).toBeGreaterThan(40);
    expect(
      testLinks.every((c) => c.names.length > 0),
      "every test link names at least one test",
    ).toBe(true);
  });

  it.each(cited.map((c) => [c.file, c.line] as const))("links %s (line %i), which exists", (file) => {
    expect(existsSync(path.join(ROOT, file))).toBe(true);
  });

  it.each(testLinks.flatMap((c) => c.names.map((name) => [name, c.file] as const)))(
    "cites `%s`, a title found in %s",
    (name, file) => {
      const source = readFileSync(path.join(ROOT, file), "utf8");
      expect(hasTitle(source, name), `${name} not found in ${file}`).toBe(true);
    },
  );
});

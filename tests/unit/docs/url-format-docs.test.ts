import { describe, expect, it } from "vitest";
import { sign } from "@/server/signing";
import { readDoc } from "../../../scripts/generate-docs";
import { replaceSection } from "../../../scripts/docs/markdown";
import { updateUrlFormatDoc } from "../../../scripts/docs/url-format";

const committed = readDoc("docs/url-format.md");

describe("docs/url-format.md", () => {
  it("has exactly the operations table generated from the code", () => {
    // On failure: npx tsx scripts/generate-docs.ts, then review and commit the diff.
    expect(updateUrlFormatDoc(committed)).toBe(committed);
  });

  it("lists test vectors that verify with the documented secret", () => {
    const secret = /`(sk_[A-Za-z0-9_-]{43})`/.exec(committed)?.[1];
    expect(secret).toBeDefined();
    const vectors = [...committed.matchAll(/^\| `([^`]+)` \| `([A-Za-z0-9_-]{32})` \|$/gm)].map((m) => [m[1]!, m[2]!]);
    expect(vectors).toHaveLength(7);
    for (const [payload, signature] of vectors) expect(sign(secret!, payload!), payload).toBe(signature);
  });
});

describe("the generator's sections", () => {
  it("needs exactly one pair of markers per section", () => {
    expect(() => replaceSection("no markers", "errors", "x")).toThrow(/errors:start/);
    const twice = "<!-- errors:start -->\n<!-- errors:end -->\n<!-- errors:start -->\n<!-- errors:end -->";
    expect(() => replaceSection(twice, "errors", "x")).toThrow();
    expect(replaceSection("a <!-- errors:start -->old<!-- errors:end --> b", "errors", "new")).toBe(
      "a <!-- errors:start -->\nnew\n\n<!-- errors:end --> b",
    );
  });
});

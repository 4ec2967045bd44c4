import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deliveryErrors as errorCatalogue } from "@/server/errors";
import { sign } from "@/server/signing";
import {
  URL_FORMAT_DOC,
  errorWhen,
  renderErrorTable,
  replaceSection,
  updateUrlFormatDoc,
} from "../../../scripts/generate-url-format-docs";

const committed = readFileSync(URL_FORMAT_DOC, "utf8");

describe("docs/url-format.md", () => {
  it("has exactly the operations and error tables generated from the code", () => {
    // On failure: npx tsx scripts/generate-url-format-docs.ts, then review and commit the diff.
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

describe("the generator", () => {
  it("refuses an error code without a `when` description", () => {
    const incomplete: Record<string, string> = { ...errorWhen };
    delete incomplete.SOURCE_GONE;
    expect(() => renderErrorTable(errorCatalogue, incomplete)).toThrow(/SOURCE_GONE/);
    expect(() => renderErrorTable(errorCatalogue, { ...errorWhen, SOURCE_GONE: " " })).toThrow(/SOURCE_GONE/);
    expect(() => renderErrorTable(errorCatalogue, { ...errorWhen, NO_SUCH_CODE: "x" })).toThrow(/NO_SUCH_CODE/);
  });

  it("shows the public code of refusals that share one", () => {
    const table = renderErrorTable(errorCatalogue, errorWhen);
    expect(table).toContain("| 403 | `FORBIDDEN` (cause `SIGNATURE_INVALID`, not sent) | Forbidden |");
    expect(table).not.toMatch(/^\| 403 \| `SIGNATURE_INVALID`/m);
  });

  it("needs exactly one pair of markers per section", () => {
    expect(() => replaceSection("no markers", "errors", "x")).toThrow(/errors:start/);
    const twice = "<!-- errors:start -->\n<!-- errors:end -->\n<!-- errors:start -->\n<!-- errors:end -->";
    expect(() => replaceSection(twice, "errors", "x")).toThrow();
    expect(replaceSection("a <!-- errors:start -->old<!-- errors:end --> b", "errors", "new")).toBe(
      "a <!-- errors:start -->\nnew\n\n<!-- errors:end --> b",
    );
  });
});

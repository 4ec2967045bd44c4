import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deliveryErrors, errorCatalogue } from "@/server/errors";
import { readDoc } from "../../../scripts/generate-docs";
import { DOCUMENTS } from "../../support/documents";
import { errorFix, errorWhen } from "../../../scripts/docs/delivery-error-texts";
import { renderDashboardErrorTable, renderDeliveryErrorTable, updateErrorsDoc } from "../../../scripts/docs/errors";

const committed = readDoc("docs/errors.md");

/** Every status a code may be written with: its own, and that of each code it is sent as. */
const statusesByCode = new Map<string, Set<number>>();
for (const [name, entry] of Object.entries(errorCatalogue)) {
  for (const shown of [name, "publicCode" in entry ? entry.publicCode : name]) {
    statusesByCode.set(shown, (statusesByCode.get(shown) ?? new Set()).add(entry.status));
  }
}

/** Prose like "403 `FORBIDDEN`" whose code the catalogue lacks, or has under another status. */
function unknownCodeMentions(markdown: string): string[] {
  return [...markdown.matchAll(/\b([1-5]\d\d)\s+`([A-Z][A-Z0-9_]*)`/g)]
    .filter(([, status, name]) => !statusesByCode.get(name!)?.has(Number(status)))
    .map(([mention]) => mention.replace(/\s+/g, " "));
}

/** Table lines outside every `<!-- name:start -->` … `<!-- name:end -->` pair. */
function tableLinesOutsideMarkers(markdown: string): string[] {
  let inside = false;
  return markdown.split("\n").filter((line) => {
    if (/^<!-- [\w-]+:start -->$/.test(line)) inside = true;
    if (/^<!-- [\w-]+:end -->$/.test(line)) inside = false;
    return !inside && line.startsWith("|");
  });
}

describe("docs/errors.md", () => {
  it("has exactly the error tables generated from the catalogue", () => {
    // On failure: npx tsx scripts/generate-docs.ts, then review and commit the diff.
    expect(updateErrorsDoc(committed)).toBe(committed);
  });

  it("keeps every table between markers, so every table is regenerated", () => {
    expect(tableLinesOutsideMarkers(committed)).toEqual([]);
    expect(tableLinesOutsideMarkers("<!-- a:start -->\n| in |\n<!-- a:end -->\n| out |")).toEqual(["| out |"]);
  });
});

describe("error codes in the documentation", () => {
  it.each(DOCUMENTS)("%s names only catalogue codes, each with its status", (file) => {
    expect(unknownCodeMentions(readFileSync(file, "utf8"))).toEqual([]);
  });

  it("catches a code the catalogue does not have, or one with the wrong status", () => {
    expect(unknownCodeMentions("403 `FORBIDDEN`, 400\n`NO_SUCH_CODE`, 404 `SOURCE_GONE`, 410 `SOURCE_GONE`")).toEqual([
      "400 `NO_SUCH_CODE`",
      "404 `SOURCE_GONE`",
    ]);
  });
});

describe("the error table generator", () => {
  it.each([
    ["errorWhen", (texts: Record<string, string>) => renderDeliveryErrorTable(deliveryErrors, texts, errorFix)],
    ["errorFix", (texts: Record<string, string>) => renderDeliveryErrorTable(deliveryErrors, errorWhen, texts)],
  ] as const)("refuses a code that %s lacks, leaves blank or does not know", (mapName, render) => {
    const complete: Record<string, string> = mapName === "errorWhen" ? { ...errorWhen } : { ...errorFix };
    const incomplete = { ...complete };
    delete incomplete.SOURCE_GONE;
    expect(() => render(incomplete)).toThrow(new RegExp(`SOURCE_GONE to ${mapName}`));
    expect(() => render({ ...complete, SOURCE_GONE: " " })).toThrow(/SOURCE_GONE/);
    expect(() => render({ ...complete, NO_SUCH_CODE: "x" })).toThrow(/NO_SUCH_CODE/);
  });

  it("shows the public code of refusals that share one", () => {
    const table = renderDeliveryErrorTable(deliveryErrors, errorWhen, errorFix);
    expect(table).toContain("| 403 | `FORBIDDEN` (cause `SIGNATURE_INVALID`, not sent) | Forbidden |");
    expect(table).not.toMatch(/^\| 403 \| `SIGNATURE_INVALID`/m);
  });

  it("shows the dashboard's errors as a tRPC client receives them", () => {
    // 410 has no tRPC code: the mapper sends INVITATION_INVALID as NOT_FOUND, which tRPC answers with 404.
    expect(renderDashboardErrorTable()).toContain(
      "| 404 | `INVITATION_INVALID` | `NOT_FOUND` | This invitation is no longer valid |",
    );
  });
});

/** The generated sections of docs/errors.md: one table per surface, all from src/server/errors.ts. */
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { toTrpcError } from "@/server/api/errors";
import { AppError, dashboardErrors, deliveryErrors, operatorErrors, requestErrors } from "@/server/errors";
import { errorFix, errorWhen } from "./delivery-error-texts";
import { code, GENERATOR, renderTable, replaceSections } from "./markdown";

export interface CatalogueEntry {
  status: number;
  message: string;
}

export interface DeliveryEntry extends CatalogueEntry {
  log: string;
  publicCode?: string;
}

type Catalogue<Entry> = Readonly<Record<string, Entry>>;
type Texts = Readonly<Record<string, string>>;

const SOURCE = "the error catalogue (src/server/errors.ts)";

/** Entries ordered by status; the sort is stable, so codes of one status keep the catalogue's order. */
function byStatus<Entry extends CatalogueEntry>(catalogue: Catalogue<Entry>): Array<[string, Entry]> {
  return Object.entries(catalogue).sort(([, a], [, b]) => a.status - b.status);
}

/** Every code described, nothing else: repeats at run time what `satisfies` checks at compile time. */
export function assertDescribesEvery(catalogue: Catalogue<unknown>, texts: Texts, mapName: string): void {
  const missing = Object.keys(catalogue).filter((name) => !texts[name]?.trim());
  if (missing.length > 0) throw new Error(`${GENERATOR}: add ${missing.join(", ")} to ${mapName}`);
  const stale = Object.keys(texts).filter((name) => !(name in catalogue));
  if (stale.length > 0) throw new Error(`${GENERATOR}: ${mapName} describes unknown code(s) ${stale.join(", ")}`);
}

/** Refusals that share a public code show it, with the cause the client is not told. */
function shownCode(name: string, entry: DeliveryEntry): string {
  return entry.publicCode ? `${code(entry.publicCode)} (cause ${code(name)}, not sent)` : code(name);
}

export function renderDeliveryErrorTable(catalogue: Catalogue<DeliveryEntry>, when: Texts, fix: Texts): string {
  assertDescribesEvery(catalogue, when, "errorWhen");
  assertDescribesEvery(catalogue, fix, "errorFix");
  const rows = byStatus(catalogue).map(([name, entry]) => [
    String(entry.status),
    shownCode(name, entry),
    entry.message,
    when[name]!,
    fix[name]!,
    code(entry.log),
  ]);
  return renderTable(SOURCE, ["status", "`code`", "`error` (default)", "when", "what to do", "request log"], rows);
}

/** What a tRPC client receives for a code: the one mapper in src/server/api/errors.ts decides, not this file. */
function asSeenByTrpcClient(name: keyof typeof dashboardErrors): { status: number; trpcCode: string } {
  const error = toTrpcError(new AppError(name));
  return { status: getHTTPStatusCodeFromError(error), trpcCode: error.code };
}

export function renderDashboardErrorTable(): string {
  const codes = Object.keys(dashboardErrors) as Array<keyof typeof dashboardErrors>;
  const rows = codes
    .map((name) => ({ name, message: dashboardErrors[name].message, ...asSeenByTrpcClient(name) }))
    .sort((a, b) => a.status - b.status)
    .map((row) => [String(row.status), code(row.name), code(row.trpcCode), row.message]);
  return renderTable(SOURCE, ["`data.httpStatus`", "`data.appCode`", "`data.code`", "`message`"], rows);
}

export function renderOperatorErrorTable(catalogue: Catalogue<CatalogueEntry>): string {
  const rows = byStatus(catalogue).map(([name, entry]) => [String(entry.status), code(name), entry.message]);
  return renderTable(SOURCE, ["status", "`code`", "`message`"], rows);
}

/** The whole document with its generated sections brought up to date. Pure: no file access. */
export function updateErrorsDoc(markdown: string): string {
  return replaceSections(markdown, {
    "image-errors": renderDeliveryErrorTable(deliveryErrors, errorWhen, errorFix),
    "dashboard-errors": renderDashboardErrorTable(),
    "operator-errors": renderOperatorErrorTable(operatorErrors),
    "request-errors": renderOperatorErrorTable(requestErrors),
  });
}

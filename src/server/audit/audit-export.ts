import { and, desc, type SQL } from "drizzle-orm";
import type { AuditFilter } from "@/lib/schemas/audit";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
import type { CsvCell } from "@/server/export/csv-stream";
import type { ReadOn } from "@/server/db/dashboard-reads";
import { throwIfGone } from "@/server/db/newest-first-scan";
import {
  auditColumns,
  auditRowFilter,
  auditScopeAndDays,
  entriesByIds,
  olderThan,
  scanAudit,
  toEntry,
  type AuditScope,
} from "./audit-log";

export const AUDIT_CSV_HEADER = [
  "time (UTC)",
  "actor",
  "actor id",
  "action",
  "target type",
  "target",
  "target id",
  "project id",
  "changes",
  "ip",
  "user agent",
] as const;

/** Rows read per query while exporting: the most the export holds in memory at once. */
export const AUDIT_EXPORT_PAGE = 1000;

/**
 * The scope's entries matching the filter, newest first, a page at a time (keyset on time and id).
 * The days are checked now, so that a bad range is refused before a response has begun. Filters no
 * index serves are checked in bounded scans (newest-first-scan.ts), one after another until the days
 * are read: each statement short, and none after the client has gone.
 */
export function auditCsvPages(
  deps: { now: () => Date; read: ReadOn },
  scope: AuditScope,
  filter: AuditFilter,
  signal?: AbortSignal,
): AsyncGenerator<CsvCell[][]> {
  return pages(deps.read, scope, auditScopeAndDays(scope, filter, deps.now()), auditRowFilter(filter), signal);
}

async function* pages(
  read: ReadOn,
  scope: AuditScope,
  walked: SQL,
  matches: ReturnType<typeof auditRowFilter>,
  signal: AbortSignal | undefined,
): AsyncGenerator<CsvCell[][]> {
  let after: { createdAt: Date; id: number } | null = null;
  for (;;) {
    const page = await read((db) => pageAfter(db, scope, walked, matches, after, signal));
    after = page.after;
    yield page.rows.map(toCsvRow);
    if (!after) return;
  }
}

/** One page of the export, and where the next begins (null: the days are read). */
async function pageAfter(
  db: Database,
  scope: AuditScope,
  walked: SQL,
  matches: ReturnType<typeof auditRowFilter>,
  after: { createdAt: Date; id: number } | null,
  signal: AbortSignal | undefined,
) {
  const start = after ? olderThan(scope, after) : undefined;
  if (matches) {
    const scanned = await scanAudit(db, scope, walked, start, matches, AUDIT_EXPORT_PAGE, signal);
    return { rows: await entriesByIds(db, scanned.rows), after: scanned.resume };
  }
  throwIfGone(signal);
  const rows = await db
    .select(auditColumns)
    .from(auditLog)
    .where(and(walked, start))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(AUDIT_EXPORT_PAGE);
  return { rows, after: rows.length < AUDIT_EXPORT_PAGE ? null : rows.at(-1)! };
}

function toCsvRow(row: Parameters<typeof toEntry>[0]): CsvCell[] {
  const entry = toEntry(row);
  return [
    entry.createdAt.toISOString(),
    entry.actor.label,
    entry.actor.id,
    entry.action,
    entry.target.type,
    entry.target.label,
    entry.target.id,
    entry.projectId,
    entry.changes ? JSON.stringify(entry.changes) : null,
    entry.ip,
    entry.userAgent,
  ];
}

import { and, desc, lt, type SQL } from "drizzle-orm";
import type { AuditFilter } from "@/lib/schemas/audit";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
import type { CsvCell } from "@/server/export/csv-stream";
import { auditColumns, auditConditions, toEntry, type AuditScope } from "./audit-log";

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
 * The scope's entries matching the filter, newest first, a page at a time (keyset on the id). The
 * filter is checked now, so that a bad range is refused before a response has begun.
 */
export function auditCsvPages(
  deps: { db: Database; now: () => Date },
  scope: AuditScope,
  filter: AuditFilter,
): AsyncGenerator<CsvCell[][]> {
  return pagesWhere(deps.db, auditConditions(scope, filter, deps.now()));
}

async function* pagesWhere(db: Database, where: SQL): AsyncGenerator<CsvCell[][]> {
  let before: number | null = null;
  for (;;) {
    const rows = await db
      .select(auditColumns)
      .from(auditLog)
      .where(and(where, before === null ? undefined : lt(auditLog.id, before)))
      .orderBy(desc(auditLog.id))
      .limit(AUDIT_EXPORT_PAGE);
    if (rows.length === 0) return;
    yield rows.map((row) => {
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
    });
    if (rows.length < AUDIT_EXPORT_PAGE) return;
    before = rows.at(-1)!.id;
  }
}

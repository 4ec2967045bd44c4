import { and, desc, eq, gte, inArray, isNull, lt, sql, type SQL } from "drizzle-orm";
import { auditActions, type AuditAction, type AuditTargetType } from "@/lib/audit-actions";
import { MAX_AUDIT_RANGE_DAYS, type AuditFilter } from "@/lib/schemas/audit";
import { rangeInstants, resolveDateRange } from "@/server/analytics/date-range";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
import { scanNewestFirst } from "@/server/db/newest-first-scan";
import type { AuditChanges } from "./changes";

/** Whose log: a team's entries, or the instance's (no team). */
export type AuditScope = { teamId: string } | { instance: true };

export interface AuditEntry {
  id: number;
  createdAt: Date;
  actor: { type: string; id: string | null; label: string };
  action: AuditAction;
  says: string;
  target: { type: AuditTargetType; id: string; label: string };
  projectId: string | null;
  changes: AuditChanges | null;
  ip: string | null;
  userAgent: string | null;
}

export { MAX_AUDIT_RANGE_DAYS };

const columns = {
  id: auditLog.id,
  createdAt: auditLog.createdAt,
  actorType: auditLog.actorType,
  actorId: auditLog.actorId,
  actorLabel: auditLog.actorLabel,
  action: auditLog.action,
  targetType: auditLog.targetType,
  targetId: auditLog.targetId,
  targetLabel: auditLog.targetLabel,
  projectId: auditLog.projectId,
  changes: auditLog.changes,
  ip: auditLog.ip,
  userAgent: auditLog.userAgent,
};

/**
 * The scope and its days: what the (team_id, created_at, id) index walks, newest first. Every query of
 * the log starts here, so none reads outside its scope.
 */
export function auditScopeAndDays(scope: AuditScope, filter: AuditFilter, now: Date): SQL {
  const range =
    filter.from || filter.to
      ? rangeInstants(
          resolveDateRange(
            { from: filter.from ?? filter.to!, to: filter.to ?? filter.from! },
            now,
            MAX_AUDIT_RANGE_DAYS,
          ),
        )
      : null;
  return and(
    inScope(scope),
    range ? gte(auditLog.createdAt, range.start) : undefined,
    range ? lt(auditLog.createdAt, range.end) : undefined,
  )!;
}

/** A team's entries, or the instance's. */
const inScope = (scope: AuditScope) =>
  "teamId" in scope ? eq(auditLog.teamId, scope.teamId) : isNull(auditLog.teamId);

/** The fields the filters read, for the rows a scan looks at (never the changes or the user agent). */
const filtered = {
  id: auditLog.id,
  createdAt: auditLog.createdAt,
  actorType: auditLog.actorType,
  actorId: auditLog.actorId,
  action: auditLog.action,
  targetType: auditLog.targetType,
  targetLabel: auditLog.targetLabel,
};
type FilteredRow = { id: number; createdAt: Date } & Record<
  Exclude<keyof typeof filtered, "id" | "createdAt">,
  unknown
>;

/**
 * What no index serves, checked on each row a scan reads (newest-first-scan.ts): its cost follows the
 * scan's budget, however many entries the scope holds. Null when nothing is filtered.
 */
export function auditRowFilter(filter: AuditFilter): ((row: FilteredRow) => boolean) | null {
  const target = filter.target?.toLowerCase();
  if (!filter.actor && !filter.action && !filter.targetType && !target) return null;
  return (row) =>
    (filter.actor === undefined || (filter.actor === "cli" ? row.actorType === "cli" : row.actorId === filter.actor)) &&
    (filter.action === undefined || row.action === filter.action) &&
    (filter.targetType === undefined || row.targetType === filter.targetType) &&
    (target === undefined || String(row.targetLabel).toLowerCase().includes(target));
}

export const newestFirst = [desc(auditLog.createdAt), desc(auditLog.id)];

/**
 * Entries older than the one with this id (a page's cursor, a scan's last row), in the walk's order.
 * Its time is read back in SQL: the database keeps microseconds, a Date only milliseconds.
 */
export function olderThan(scope: AuditScope, row: { id: number }): SQL {
  // Scoped: another scope's entry names no time here (a cursor is input, and would tell it otherwise).
  return sql`(${auditLog.createdAt}, ${auditLog.id}) < (select ${auditLog.createdAt}, ${auditLog.id} from ${auditLog} where ${auditLog.id} = ${row.id} and ${inScope(scope)})`;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** The cursor of the next page (entries older than this id); null when nothing is older. */
  next: number | null;
  /** The filters were checked over a bounded number of entries, back to this time; the next page goes on. */
  searchedBackTo: Date | null;
}

/**
 * A page of entries, newest first. Without filters it is one walk of the index; with them, a bounded
 * scan (newest-first-scan.ts) whose page may hold fewer entries than asked, and says how far back it looked.
 */
export async function listAuditEntries(
  deps: { db: Database; now: () => Date },
  scope: AuditScope,
  input: AuditFilter & { before?: number; limit: number },
  signal?: AbortSignal,
): Promise<AuditPage> {
  const walked = auditScopeAndDays(scope, input, deps.now());
  const start = input.before ? olderThan(scope, { id: input.before }) : undefined;
  const matches = auditRowFilter(input);
  if (!matches) {
    const rows = await deps.db
      .select(columns)
      .from(auditLog)
      .where(and(walked, start))
      .orderBy(...newestFirst)
      .limit(input.limit + 1);
    const page = rows.slice(0, input.limit);
    return {
      entries: page.map(toEntry),
      next: rows.length > input.limit ? page.at(-1)!.id : null,
      searchedBackTo: null,
    };
  }
  const scanned = await scanAudit(deps.db, scope, walked, start, matches, input.limit, signal);
  return {
    entries: (await entriesByIds(deps.db, scanned.rows)).map(toEntry),
    next: scanned.resume?.id ?? null,
    searchedBackTo: scanned.partial ? (scanned.resume?.createdAt ?? null) : null,
  };
}

/** A bounded scan of the walk from `start`, keeping what `matches` accepts. */
export function scanAudit(
  db: Database,
  scope: AuditScope,
  walked: SQL,
  start: SQL | undefined,
  matches: (row: FilteredRow) => boolean,
  want: number,
  signal?: AbortSignal,
) {
  return scanNewestFirst<FilteredRow>({
    read: (after, size) =>
      db
        .select(filtered)
        .from(auditLog)
        .where(and(walked, after ? olderThan(scope, after) : start))
        .orderBy(...newestFirst)
        .limit(size),
    matches,
    want,
    signal,
  });
}

/** The chosen entries in full, newest first. */
export async function entriesByIds(db: Database, chosen: ReadonlyArray<{ id: number }>) {
  if (chosen.length === 0) return [];
  return db
    .select(columns)
    .from(auditLog)
    .where(
      inArray(
        auditLog.id,
        chosen.map((row) => row.id),
      ),
    )
    .orderBy(...newestFirst);
}

export function toEntry(row: {
  id: number;
  createdAt: Date;
  actorType: string;
  actorId: string | null;
  actorLabel: string;
  action: string;
  targetType: string;
  targetId: string;
  targetLabel: string;
  projectId: string | null;
  changes: AuditChanges | null;
  ip: string | null;
  userAgent: string | null;
}): AuditEntry {
  const action = row.action as AuditAction;
  return {
    id: row.id,
    createdAt: row.createdAt,
    actor: { type: row.actorType, id: row.actorId, label: row.actorLabel },
    action,
    says: auditActions[action]?.says ?? row.action,
    target: { type: row.targetType as AuditTargetType, id: row.targetId, label: row.targetLabel },
    projectId: row.projectId,
    changes: row.changes,
    ip: row.ip,
    userAgent: row.userAgent,
  };
}

export { columns as auditColumns };

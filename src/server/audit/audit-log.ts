import { and, desc, eq, gte, ilike, isNull, lt, sql, type SQL } from "drizzle-orm";
import { auditActions, type AuditAction, type AuditTargetType } from "@/lib/audit-actions";
import { MAX_AUDIT_RANGE_DAYS, type AuditFilter } from "@/lib/schemas/audit";
import { rangeInstants, resolveDateRange } from "@/server/analytics/date-range";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
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
 * The conditions of a scope and its filters. Every query of the log starts here, so none reads
 * outside its scope. Served by the (team_id, id desc) index, newest first.
 */
export function auditConditions(scope: AuditScope, filter: AuditFilter, now: Date): SQL {
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
    "teamId" in scope ? eq(auditLog.teamId, scope.teamId) : isNull(auditLog.teamId),
    filter.actor === "cli"
      ? eq(auditLog.actorType, "cli")
      : filter.actor
        ? eq(auditLog.actorId, filter.actor)
        : undefined,
    filter.action ? eq(auditLog.action, filter.action) : undefined,
    filter.targetType ? eq(auditLog.targetType, filter.targetType) : undefined,
    filter.target ? ilike(auditLog.targetLabel, `%${filter.target.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
    range ? gte(auditLog.createdAt, range.start) : undefined,
    range ? lt(auditLog.createdAt, range.end) : undefined,
  )!;
}

/** A page of entries, newest first; `next` continues after its last (null: no more). */
export async function listAuditEntries(
  deps: { db: Database; now: () => Date },
  scope: AuditScope,
  input: AuditFilter & { before?: number; limit: number },
): Promise<{ entries: AuditEntry[]; next: number | null }> {
  const rows = await deps.db
    .select(columns)
    .from(auditLog)
    .where(and(auditConditions(scope, input, deps.now()), input.before ? lt(auditLog.id, input.before) : undefined))
    .orderBy(desc(auditLog.id))
    .limit(input.limit + 1);
  const page = rows.slice(0, input.limit);
  return { entries: page.map(toEntry), next: rows.length > input.limit ? page.at(-1)!.id : null };
}

/** Who appears in the scope's log, for the actor filter (the most recent label of each). */
export async function auditActors(
  deps: { db: Database; now: () => Date },
  scope: AuditScope,
): Promise<Array<{ id: string; label: string }>> {
  const now = deps.now();
  const rows = await deps.db
    .select({
      id: sql<string>`coalesce(${auditLog.actorId}, ${auditLog.actorType})`,
      label: sql<string>`(array_agg(${auditLog.actorLabel} order by ${auditLog.id} desc))[1]`,
    })
    .from(auditLog)
    // The people and the command line: the server and anonymous attempts cannot be told apart by id.
    .where(
      and(auditConditions(scope, {}, now), sql`(${auditLog.actorId} is not null or ${auditLog.actorType} = 'cli')`),
    )
    .groupBy(sql`1`)
    .orderBy(sql`2`)
    .limit(200);
  return rows;
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

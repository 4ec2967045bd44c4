import { and, desc, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
import { auditScopeAndDays, newestFirst, type AuditScope } from "./audit-log";

/** Actors the filter offers: those among this many newest entries (a bounded read, whatever the log holds). */
export const AUDIT_ACTORS_WINDOW = 10_000;

/** Who appears among the scope's recent entries, for the actor filter (the most recent label of each). */
export async function auditActors(
  deps: { db: Database; now: () => Date },
  scope: AuditScope,
): Promise<Array<{ id: string; label: string }>> {
  const recent = deps.db
    .select({
      id: sql<string>`coalesce(${auditLog.actorId}, ${auditLog.actorType})`.as("actor"),
      label: sql<string>`${auditLog.actorLabel}`.as("label"),
      createdAt: auditLog.createdAt,
      entry: sql<number>`${auditLog.id}`.as("entry"),
    })
    .from(auditLog)
    // The people and the command line: the server and anonymous attempts cannot be told apart by id.
    .where(
      and(
        auditScopeAndDays(scope, {}, deps.now()),
        sql`(${auditLog.actorId} is not null or ${auditLog.actorType} = 'cli')`,
      ),
    )
    .orderBy(...newestFirst)
    .limit(AUDIT_ACTORS_WINDOW)
    .as("recent");
  const rows = await deps.db
    .selectDistinctOn([recent.id], { id: recent.id, label: recent.label })
    .from(recent)
    .orderBy(recent.id, desc(recent.createdAt), desc(recent.entry));
  return rows.sort((a, b) => a.label.localeCompare(b.label)).slice(0, 200);
}

import { and, asc, eq, gt } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
import { auditColumns, toEntry } from "@/server/audit/audit-log";

/** Entries in one batch at most, and about how many bytes: one request, one object, both small. */
export const BATCH_ENTRIES = 500;
export const BATCH_BYTES = 1024 * 1024;

/** The team's next entries after the cursor, as NDJSON: one JSON object per line, oldest first. */
export interface AuditBatch {
  firstId: number;
  lastId: number;
  entries: number;
  firstAt: Date;
  body: string;
}

/**
 * The batch after `cursor`, or null when the stream is caught up. Entries of one team commit in id
 * order (audit/trail.ts takes them one transaction at a time), so none can still appear below it.
 */
export async function nextBatch(db: Database, teamId: string, cursor: number): Promise<AuditBatch | null> {
  const rows = await db
    .select(auditColumns)
    .from(auditLog)
    .where(and(eq(auditLog.teamId, teamId), gt(auditLog.id, cursor)))
    .orderBy(asc(auditLog.id))
    .limit(BATCH_ENTRIES);
  if (rows.length === 0) return null;
  const lines: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    const line = `${JSON.stringify(streamLine(teamId, row))}\n`;
    if (lines.length > 0 && bytes + Buffer.byteLength(line) > BATCH_BYTES) break;
    lines.push(line);
    bytes += Buffer.byteLength(line);
  }
  return {
    firstId: rows[0]!.id,
    lastId: rows[lines.length - 1]!.id,
    entries: lines.length,
    firstAt: rows[0]!.createdAt,
    body: lines.join(""),
  };
}

/** One entry as a line says it: what the console's log and its CSV show, with the team's id. */
export function streamLine(teamId: string, row: Parameters<typeof toEntry>[0]) {
  const entry = toEntry(row);
  return {
    id: entry.id,
    time: entry.createdAt.toISOString(),
    teamId,
    projectId: entry.projectId,
    actor: entry.actor,
    action: entry.action,
    says: entry.says,
    target: entry.target,
    changes: entry.changes,
    ip: entry.ip,
    userAgent: entry.userAgent,
  };
}

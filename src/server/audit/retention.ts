import { and, gte, inArray, lt, ne, notExists, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { auditLog, auditStreams } from "@/server/db/schema";

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Registration policy entries stay whatever their age: a start compares the policy with the last one
 * (tenancy/registration-record.ts), which must not be pruned into a false "changed". One per change: few.
 */
const KEPT = "instance.registration_changed";

/**
 * A team's entries its audit stream has not sent yet are kept whatever their age: the stream is
 * at-least-once, and an entry pruned before it went would be lost to the receiver without a trace.
 */
const notYetStreamed = notExists(
  sql`(select 1 from ${auditStreams} where ${auditStreams.teamId} = ${auditLog.teamId} and ${auditLog.id} > ${auditStreams.cursor})`,
);

/**
 * Deletes entries older than the retention, in batches so a large backlog (the first run after the
 * setting is shortened) never holds one long lock on the table.
 */
export async function pruneAuditLog(
  db: Database,
  now: Date,
  retentionDays: number,
  batchSize = 10_000,
): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  let total = 0;
  // Oldest first, each batch from where the last ended: entries kept (unsent, the policy's) are walked
  // past once, not again by every batch.
  let from: Date | null = null;
  for (;;) {
    const old: { id: number; createdAt: Date }[] = await db
      .select({ id: auditLog.id, createdAt: auditLog.createdAt })
      .from(auditLog)
      .where(
        and(
          lt(auditLog.createdAt, before),
          from ? gte(auditLog.createdAt, from) : undefined,
          ne(auditLog.action, KEPT),
          notYetStreamed,
        ),
      )
      .orderBy(auditLog.createdAt)
      .limit(batchSize);
    if (old.length > 0)
      await db.delete(auditLog).where(
        inArray(
          auditLog.id,
          old.map((row) => row.id),
        ),
      );
    total += old.length;
    if (old.length < batchSize) return total;
    from = old.at(-1)!.createdAt;
  }
}

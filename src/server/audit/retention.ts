import { and, gte, inArray, lt, ne, notExists, or, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { auditLog, auditStreams } from "@/server/db/schema";

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Registration policy entries stay whatever their age: a start compares the policy with the last one
 * (tenancy/registration-record.ts), which must not be pruned into a false "changed". One per change: few.
 */
const KEPT = "instance.registration_changed";

/**
 * A team's entries its audit stream has not sent yet are kept past the retention: the stream is
 * at-least-once, and an entry pruned before it went would be lost to the receiver. For this long at
 * most: a stream that fails for months (or whose admin points it nowhere) does not keep the log past
 * the operator's retention for ever.
 */
export const UNSENT_KEPT_DAYS = 90;

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
  const unsentBefore = new Date(before.getTime() - UNSENT_KEPT_DAYS * DAY_MS);
  const prunable = and(
    lt(auditLog.createdAt, before),
    ne(auditLog.action, KEPT),
    or(lt(auditLog.createdAt, unsentBefore), notYetStreamed),
  );
  let total = 0;
  // Oldest first, each batch from where the last ended: entries kept (unsent, the policy's) are walked
  // past once, not again by every batch.
  let from: Date | null = null;
  for (;;) {
    const old: { id: number; createdAt: Date }[] = await db
      .select({ id: auditLog.id, createdAt: auditLog.createdAt })
      .from(auditLog)
      .where(and(prunable, from ? gte(auditLog.createdAt, from) : undefined))
      .orderBy(auditLog.createdAt)
      .limit(batchSize);
    // Asked again as it deletes: a cursor moved back meanwhile makes its entries unsent again.
    if (old.length > 0) {
      const gone = await db
        .delete(auditLog)
        .where(
          and(
            inArray(
              auditLog.id,
              old.map((row) => row.id),
            ),
            prunable,
          ),
        )
        .returning({ id: auditLog.id });
      total += gone.length;
    }
    if (old.length < batchSize) return total;
    from = old.at(-1)!.createdAt;
  }
}

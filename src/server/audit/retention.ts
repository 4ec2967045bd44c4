import { and, inArray, lt, ne } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Registration policy entries stay whatever their age: a start compares the policy with the last one
 * (tenancy/registration-record.ts), which must not be pruned into a false "changed". One per change: few.
 */
const KEPT = "instance.registration_changed";

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
  for (;;) {
    const old = db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(and(lt(auditLog.createdAt, before), ne(auditLog.action, KEPT)))
      .limit(batchSize);
    const deleted = (await db.delete(auditLog).where(inArray(auditLog.id, old)).returning({ id: auditLog.id })).length;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

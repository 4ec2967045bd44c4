import { asc, eq, sql } from "drizzle-orm";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { invalidationRetry } from "@/server/db/schema";

/** Give up after this many daily attempts: the entries expired on their own (≤ 60 s) long before. */
const MAX_ATTEMPTS = 10;

export interface InvalidationQueue {
  enqueue(keys: readonly string[]): Promise<void>;
}

export function createInvalidationQueue(db: Database): InvalidationQueue {
  return {
    async enqueue(keys) {
      if (keys.length > 0) await db.insert(invalidationRetry).values({ keys: [...keys] });
    },
  };
}

/** Retries queued invalidations; a row leaves the queue once Redis confirmed the delete. */
export async function retryInvalidations(
  deps: { db: Database; kv: KeyValue | null },
  batchSize = 500,
): Promise<{ retried: number; failed: number; abandoned: number }> {
  const rows = await deps.db.select().from(invalidationRetry).orderBy(asc(invalidationRetry.id)).limit(batchSize);
  const report = { retried: 0, failed: 0, abandoned: 0 };
  for (const row of rows) {
    try {
      await deps.kv?.del(row.keys);
      await deps.db.delete(invalidationRetry).where(eq(invalidationRetry.id, row.id));
      report.retried++;
    } catch (error) {
      if (row.attempts + 1 >= MAX_ATTEMPTS) {
        await deps.db.delete(invalidationRetry).where(eq(invalidationRetry.id, row.id));
        report.abandoned++;
      } else {
        const message = error instanceof Error ? error.message : String(error);
        await deps.db
          .update(invalidationRetry)
          .set({ attempts: sql`${invalidationRetry.attempts} + 1`, lastError: message })
          .where(eq(invalidationRetry.id, row.id));
        report.failed++;
      }
    }
  }
  return report;
}

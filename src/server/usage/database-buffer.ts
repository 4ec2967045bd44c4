import { inArray, sql } from "drizzle-orm";
import { minuteStamp } from "@/server/coordination/keys";
import type { Database } from "@/server/db/client";
import { usageBuffer } from "@/server/db/schema";
import type { ClaimedBucket } from "./aggregate-claims";
import type { UsageIncrement } from "./buffer-usage";

/** The database, or a transaction on it. */
export type UsageWriter = Pick<Database, "insert" | "select" | "delete">;

type BufferRow = typeof usageBuffer.$inferInsert;

/**
 * Adds increments to the minute buckets kept in usage_buffer (no shared Redis: the embedded default):
 * one upsert per call, one row per (minute, project, key). Rows go in key order, so two writers that
 * touch the same rows lock them in the same order and cannot deadlock on PostgreSQL.
 */
export async function addUsage(db: UsageWriter, increments: readonly UsageIncrement[]): Promise<void> {
  const upsert = usageUpsert(db, increments);
  if (upsert) await upsert;
}

/** The upsert addUsage runs, for a batch's one statement (one-statement.ts); null for no increments. */
export function usageUpsert(db: Pick<Database, "insert">, increments: readonly UsageIncrement[]) {
  const rows = new Map<string, BufferRow>();
  for (const increment of increments) {
    const bucket = minuteStamp(increment.at);
    const id = `${bucket}|${increment.projectId}|${increment.apiKeyId}`;
    const row = rows.get(id) ?? {
      bucket,
      projectId: increment.projectId,
      apiKeyId: increment.apiKeyId,
      requests: 0,
      bytes: 0,
      transforms: 0,
    };
    row.requests = (row.requests ?? 0) + increment.requests;
    row.bytes = (row.bytes ?? 0) + increment.bytes;
    row.transforms = (row.transforms ?? 0) + increment.transforms;
    rows.set(id, row);
  }
  if (rows.size === 0) return null;
  const ordered = [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  return db
    .insert(usageBuffer)
    .values(ordered)
    .onConflictDoUpdate({
      target: [usageBuffer.bucket, usageBuffer.projectId, usageBuffer.apiKeyId],
      set: {
        requests: sql`${usageBuffer.requests} + excluded.requests`,
        bytes: sql`${usageBuffer.bytes} + excluded.bytes`,
        transforms: sql`${usageBuffer.transforms} + excluded.transforms`,
      },
    });
}

/** The minutes that hold buffered usage, oldest first. */
export async function bufferedMinutes(db: UsageWriter): Promise<string[]> {
  const rows = await db
    .select({ bucket: usageBuffer.bucket })
    .from(usageBuffer)
    .groupBy(usageBuffer.bucket)
    .orderBy(usageBuffer.bucket);
  return rows.map((row) => row.bucket);
}

/**
 * Takes the given minutes out of usage_buffer (inside the caller's transaction: if it rolls back, they
 * are back) as claims under `claim`, in the counters layout of a Redis bucket, so one aggregation and
 * one ledger serve both buffers.
 */
export async function takeMinutes(
  tx: UsageWriter,
  buckets: readonly string[],
  claim: string,
): Promise<ClaimedBucket[]> {
  if (buckets.length === 0) return [];
  const taken = await tx
    .delete(usageBuffer)
    .where(inArray(usageBuffer.bucket, [...buckets]))
    .returning();
  const claims = new Map<string, ClaimedBucket>();
  for (const row of taken) {
    const bucket = claims.get(row.bucket) ?? { key: row.bucket, stamp: row.bucket, claim, counters: {} };
    bucket.counters[`${row.projectId}|${row.apiKeyId}|req`] = row.requests;
    bucket.counters[`${row.projectId}|${row.apiKeyId}|bytes`] = row.bytes;
    bucket.counters[`${row.projectId}|${row.apiKeyId}|tf`] = row.transforms;
    claims.set(row.bucket, bucket);
  }
  return [...claims.values()];
}

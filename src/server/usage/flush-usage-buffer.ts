import { randomBytes } from "node:crypto";
import { keySpecs, redisKeys } from "@/server/coordination/keys";
import { acquireLock } from "@/server/coordination/lock";
import { bucketMinute, type ClaimedBucket } from "./aggregate-claims";
import { applyClaims } from "./apply-claims";
import { flushDatabaseBuffer } from "./flush-database-buffer";
import {
  BUCKET_MS,
  countApplied,
  defaultFlushOptions,
  type FlushDeps,
  type FlushOptions,
  type FlushReport,
  type FlushRun,
} from "./flush-run";

export {
  BUCKET_MS,
  defaultFlushOptions,
  type FlushDeps,
  type FlushOptions,
  type FlushReport,
  type FlushStep,
} from "./flush-run";

/**
 * Moves the minute buckets into usage_record exactly once (docs/usage-metering.md): under the flush
 * lock, SCAN the buckets, skip the recent ones, and per batch claim the counters in Redis, apply the
 * claims in one transaction with the ledger, then release them. A crash anywhere leaves either a
 * claim that the next run applies or one the ledger already holds; increments landing after a claim
 * wait beside it for the next run. Then the same for the minutes buffered in the database (no shared
 * Redis), where taking and applying a minute is one transaction.
 */
export async function flushUsageBuffer(
  deps: FlushDeps,
  options: FlushOptions = defaultFlushOptions,
): Promise<FlushReport> {
  const started = performance.now();
  const report: FlushReport = {
    outcome: "flushed",
    meteredUpTo: null,
    buckets: { scanned: 0, applied: 0, alreadyApplied: 0, skippedRecent: 0, empty: 0, deferred: 0 },
    rows: 0,
    requests: 0,
    bytes: 0,
    droppedRequests: 0,
    batches: 0,
    durationMs: 0,
  };
  const lock = await acquireLock(deps.kv, redisKeys.usageFlushLock(), options.lockTtlSeconds);
  if (!lock) return { ...report, outcome: "locked", durationMs: Math.round(performance.now() - started) };
  try {
    const now = deps.now().getTime();
    const run: FlushRun = {
      deps,
      options,
      report,
      newestReady: now - options.safetyLagMs - BUCKET_MS,
      mayStartBatch() {
        if (!lock.held())
          throw new Error("The flush lock expired while this flush ran; the rest is left for the next run");
        return performance.now() - started <= options.budgetMs;
      },
    };
    const deferredFrom = [await flushRedisBuckets(run), await flushDatabaseBuffer(run)];
    // The end of the newest ready minute, but never past now (a negative lag takes the current minute).
    const upTo = Math.min(
      now,
      Math.floor((run.newestReady + BUCKET_MS) / BUCKET_MS) * BUCKET_MS,
      ...deferredFrom.filter((t) => t !== null),
    );
    report.meteredUpTo = new Date(upTo).toISOString();
  } finally {
    await lock.release();
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

/** The Redis (or in-process) buckets; answers the minute of the first bucket left for the next run. */
async function flushRedisBuckets(run: FlushRun): Promise<number | null> {
  const { deps, options, report } = run;
  const ready = await readyBuckets(run);
  await deps.faults?.("scanned");
  const claimId = randomBytes(9).toString("base64url");
  for (let i = 0; i < ready.length; i += options.bucketsPerBatch) {
    if (!run.mayStartBatch()) {
      report.buckets.deferred += ready.length - i;
      return ready[i]!.minute;
    }
    const batch = ready.slice(i, i + options.bucketsPerBatch);
    const claims = await deps.kv.claimHashes(
      batch.map((b) => b.key),
      claimId,
    );
    const claimed: ClaimedBucket[] = [];
    claims.forEach((claim, j) => {
      if (claim) claimed.push({ ...claim, key: batch[j]!.key, stamp: batch[j]!.stamp });
      else report.buckets.empty++;
    });
    await deps.faults?.("claimed");
    if (claimed.length === 0) continue;
    const applied = await applyClaims(deps.db, claimed, async () => deps.faults?.("ledger-written"));
    await deps.faults?.("committed");
    for (let j = 0; j < claimed.length; j += options.releaseChunk) {
      await deps.kv.releaseClaims(claimed.slice(j, j + options.releaseChunk));
      await deps.faults?.("released-chunk");
    }
    countApplied(report, applied);
  }
  return null;
}

async function readyBuckets({
  deps,
  report,
  newestReady,
}: FlushRun): Promise<Array<{ key: string; stamp: string; minute: number }>> {
  const ready: Array<{ key: string; stamp: string; minute: number }> = [];
  let cursor = "0";
  do {
    const page = await deps.kv.scan(keySpecs.usageBucket.prefix, cursor, 1_000);
    cursor = page.cursor;
    for (const key of page.keys) {
      const minute = bucketMinute(key);
      if (!minute) continue;
      report.buckets.scanned++;
      if (minute.getTime() > newestReady) report.buckets.skippedRecent++;
      else ready.push({ key, stamp: key.slice(keySpecs.usageBucket.prefix.length), minute: minute.getTime() });
    }
  } while (cursor !== "0");
  // SCAN may return a key twice; oldest first so a long backlog drains in order.
  return [...new Map(ready.map((b) => [b.key, b])).values()].sort((a, b) => a.stamp.localeCompare(b.stamp));
}

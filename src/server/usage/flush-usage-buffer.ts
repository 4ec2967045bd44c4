import { randomBytes } from "node:crypto";
import { keySpecs, redisKeys } from "@/server/coordination/keys";
import { acquireLock } from "@/server/coordination/lock";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { bucketMinute, type ClaimedBucket } from "./aggregate-claims";
import { applyClaims } from "./apply-claims";

/** Where a flush can stop; tests crash it at each one and prove a re-run ends exactly right. */
export type FlushStep = "scanned" | "claimed" | "ledger-written" | "committed" | "released-chunk";

export interface FlushDeps {
  kv: KeyValue;
  db: Database;
  now: () => Date;
  /** Crash injection for tests; absent in the product. */
  faults?: (step: FlushStep) => void | Promise<void>;
}

export interface FlushOptions {
  /** A bucket is read only this long after its minute ended (requests still finishing write into it). */
  safetyLagMs: number;
  bucketsPerBatch: number;
  /** Claims released per Redis call; tests make it 1 to crash in the middle of a release. */
  releaseChunk: number;
  lockTtlSeconds: number;
  /** No new batch starts after this long; the rest waits for the next run (a cron call has 60 s). */
  budgetMs: number;
}

export const defaultFlushOptions: FlushOptions = { safetyLagMs: 60_000, bucketsPerBatch: 200, releaseChunk: 200, lockTtlSeconds: 55, budgetMs: 40_000 };

export interface FlushReport {
  outcome: "flushed" | "locked";
  /** `deferred`: ready buckets left for the next run because the time budget was spent. */
  buckets: { scanned: number; applied: number; alreadyApplied: number; skippedRecent: number; empty: number; deferred: number };
  rows: number;
  requests: number;
  bytes: number;
  droppedRequests: number;
  batches: number;
  durationMs: number;
}

/**
 * Moves the minute buckets into usage_record exactly once (docs/usage-metering.md): under the flush
 * lock, SCAN the buckets, skip the recent ones, and per batch claim the counters in Redis, apply the
 * claims in one transaction with the ledger, then release them. A crash anywhere leaves either a
 * claim that the next run applies or one the ledger already holds; increments landing after a claim
 * wait beside it for the next run.
 */
export async function flushUsageBuffer(deps: FlushDeps, options: FlushOptions = defaultFlushOptions): Promise<FlushReport> {
  const started = performance.now();
  const report: FlushReport = {
    outcome: "flushed",
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
    const ready = await readyBuckets(deps, options, report);
    await deps.faults?.("scanned");
    const claimId = randomBytes(9).toString("base64url");
    for (let i = 0; i < ready.length; i += options.bucketsPerBatch) {
      if (!lock.held()) throw new Error("The flush lock expired while this flush ran; the rest is left for the next run");
      if (performance.now() - started > options.budgetMs) {
        report.buckets.deferred = ready.length - i;
        break;
      }
      const batch = ready.slice(i, i + options.bucketsPerBatch);
      const claims = await deps.kv.claimHashes(batch.map((b) => b.key), claimId);
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
      report.batches++;
      report.buckets.applied += applied.applied.length;
      report.buckets.alreadyApplied += applied.alreadyApplied;
      report.rows += applied.rows;
      for (const totals of applied.applied) {
        report.requests += totals.requests;
        report.bytes += totals.bytes;
        report.droppedRequests += totals.droppedRequests;
      }
    }
  } finally {
    await lock.release();
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

async function readyBuckets(deps: FlushDeps, options: FlushOptions, report: FlushReport): Promise<Array<{ key: string; stamp: string }>> {
  const newestReady = deps.now().getTime() - options.safetyLagMs - 60_000;
  const ready: Array<{ key: string; stamp: string }> = [];
  let cursor = "0";
  do {
    const page = await deps.kv.scan(keySpecs.usageBucket.prefix, cursor, 1_000);
    cursor = page.cursor;
    for (const key of page.keys) {
      const minute = bucketMinute(key);
      if (!minute) continue;
      report.buckets.scanned++;
      if (minute.getTime() > newestReady) report.buckets.skippedRecent++;
      else ready.push({ key, stamp: key.slice(keySpecs.usageBucket.prefix.length) });
    }
  } while (cursor !== "0");
  // SCAN may return a key twice; oldest first so a long backlog drains in order.
  return [...new Map(ready.map((b) => [b.key, b])).values()].sort((a, b) => a.stamp.localeCompare(b.stamp));
}

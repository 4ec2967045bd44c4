import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import type { AppliedClaims } from "./apply-claims";

// The flush's options, report and run state, shared by its two halves (flush-usage-buffer.ts for the
// Redis buckets, flush-database-buffer.ts for usage_buffer).

/** Where a flush can stop; tests crash it at each one and prove a re-run ends exactly right. */
export type FlushStep = "scanned" | "claimed" | "ledger-written" | "committed" | "released-chunk";

/** A bucket holds one UTC minute. */
export const BUCKET_MS = 60_000;

export interface FlushDeps {
  kv: KeyValue;
  db: Database;
  now: () => Date;
  /** Crash injection for tests; absent in the product. */
  faults?: (step: FlushStep) => void | Promise<void>;
}

export interface FlushOptions {
  /**
   * A bucket is read only this long after its minute ended: writers stamp increments with their own
   * clock when they record them, and an increment reaches its bucket within its budget (2 s to Redis,
   * the request log's 50 ms batch in the database), so past the lag the bucket is complete. Default 5 s.
   * Correctness does not rest on it: an increment later still waits beside the claim for the next run.
   */
  safetyLagMs: number;
  bucketsPerBatch: number;
  /** Claims released per Redis call; tests make it 1 to crash in the middle of a release. */
  releaseChunk: number;
  lockTtlSeconds: number;
  /** No new batch starts after this long; the rest waits for the next run (a cron call has 60 s). */
  budgetMs: number;
}

export const defaultFlushOptions: FlushOptions = {
  safetyLagMs: 5_000,
  bucketsPerBatch: 200,
  releaseChunk: 200,
  lockTtlSeconds: 55,
  budgetMs: 40_000,
};

export interface FlushReport {
  outcome: "flushed" | "locked";
  /**
   * usage_record holds every increment stamped before this instant (ISO), the late ones aside
   * (docs/usage-metering.md); null when the run did nothing (locked).
   */
  meteredUpTo: string | null;
  /** `deferred`: ready buckets left for the next run because the time budget was spent. */
  buckets: {
    scanned: number;
    applied: number;
    alreadyApplied: number;
    skippedRecent: number;
    empty: number;
    deferred: number;
  };
  rows: number;
  requests: number;
  bytes: number;
  droppedRequests: number;
  batches: number;
  durationMs: number;
}

/** One run, as its two halves (Redis buckets, the database buffer) see it. */
export interface FlushRun {
  deps: FlushDeps;
  options: FlushOptions;
  report: FlushReport;
  /** A bucket whose minute starts at or before this instant (ms) is ready. */
  newestReady: number;
  /** False once the time budget is spent (the rest waits for the next run); throws once the lock was lost. */
  mayStartBatch(): boolean;
}

/** Adds what one committed batch applied to the report. */
export function countApplied(report: FlushReport, applied: AppliedClaims): void {
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

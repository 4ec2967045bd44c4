import type { Counters } from "@/server/coordination/counters";
import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { requestLog } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { describeError, type SampledLog } from "@/server/log";

export interface RequestLogOptions {
  /** Share of successes written, 0 to 1. */
  successSampleRate: number;
  /** Failures written per project and minute; a holder of a public key cannot flood the log past it. */
  failuresPerProjectMinute: number;
  /** Rows gathered before one INSERT; a partial batch is written after `batchWindowMs`. */
  batchSize: number;
  batchWindowMs: number;
}

export const defaultRequestLogOptions: RequestLogOptions = { successSampleRate: 1, failuresPerProjectMinute: 60, batchSize: 200, batchWindowMs: 50 };

export interface RequestLogDeps {
  db: Database;
  kv: KeyValue;
  counters: Counters;
  logSampled: SampledLog;
  random?: () => number;
}

export interface RequestLog {
  /** Resolves once the outcome is written, or decided against. Never rejects. */
  record(outcome: RequestOutcome, at: Date): Promise<void>;
  /** Writes what is gathered now (shutdown). */
  drain(): Promise<void>;
}

type Row = typeof requestLog.$inferInsert;

/**
 * The request log behind the image API: after the response, sampled successes and capped failures
 * (the cap counted in Redis, so it holds across instances) are gathered and written in batches, one
 * INSERT per batch. Only outcomes that name a project are logged: the log is read per project.
 */
export function createRequestLog(deps: RequestLogDeps, options: RequestLogOptions = defaultRequestLogOptions): RequestLog {
  const random = deps.random ?? Math.random;
  let batch: Array<{ row: Row; done: () => void }> = [];
  let timer: NodeJS.Timeout | null = null;

  async function write(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const taken = batch;
    batch = [];
    if (taken.length === 0) return;
    try {
      await deps.db.insert(requestLog).values(taken.map((t) => t.row));
      deps.counters.increment("request_log_rows", taken.length);
    } catch (error) {
      deps.counters.increment("request_log_rows_lost", taken.length);
      deps.logSampled("request-log", "error", "request log rows lost", { rows: taken.length, ...describeError(error) });
    } finally {
      for (const t of taken) t.done();
    }
  }

  async function admitted(outcome: RequestOutcome & { projectId: string }, at: Date): Promise<boolean> {
    if (outcome.status === "success") return options.successSampleRate >= 1 || random() < options.successSampleRate;
    try {
      const key = redisKeys.requestLogFailures(outcome.projectId, at);
      const count = await withBudget("requestLogCap", deps.kv.increment(key, TTL_SECONDS.requestLogFailures));
      return count <= options.failuresPerProjectMinute;
    } catch {
      return false; // no shared count, no unbounded writes
    }
  }

  return {
    async record(outcome, at) {
      if (!outcome.projectId) return;
      if (!(await admitted({ ...outcome, projectId: outcome.projectId }, at))) {
        deps.counters.increment("request_log_skipped");
        return;
      }
      const weight = outcome.status === "success" ? 1 / options.successSampleRate : 1;
      const written = new Promise<void>((done) => batch.push({ row: { ...toRow(outcome, at), weight }, done }));
      if (batch.length >= options.batchSize) void write();
      else timer ??= setTimeout(() => void write(), options.batchWindowMs);
      return written;
    },
    drain: write,
  };
}

function toRow(outcome: RequestOutcome, at: Date): Row {
  return {
    requestId: outcome.requestId,
    projectId: outcome.projectId!,
    apiKeyId: outcome.apiKeyId ?? null,
    status: outcome.status,
    httpStatus: outcome.httpStatus,
    // Already without query and fragment (serve-image keeps scheme, host and path: they can carry tokens).
    sourceUrl: outcome.sourceUrl ?? null,
    operations: outcome.operations ?? null,
    outputFormat: outcome.outputFormat ?? null,
    sourceBytes: outcome.sourceBytes ?? null,
    outputBytes: outcome.outputBytes ?? null,
    processingMs: Math.round(outcome.durationMs),
    cache: outcome.cache ?? null,
    createdAt: at,
  };
}

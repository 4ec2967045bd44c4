import type { Counters } from "@/server/coordination/counters";
import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { requestLog } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { describeError, type SampledLog } from "@/server/log";
import { meteredIncrement, type UsageIncrement } from "./buffer-usage";
import { addUsage } from "./database-buffer";

export interface RequestLogOptions {
  /** Share of successes written, 0 to 1. */
  successSampleRate: number;
  /** Failures written per project and minute; a holder of a public key cannot flood the log past it. */
  failuresPerProjectMinute: number;
  /** Rows gathered before one INSERT; a partial batch is written after `batchWindowMs`. */
  batchSize: number;
  batchWindowMs: number;
}

export const defaultRequestLogOptions: RequestLogOptions = {
  successSampleRate: 1,
  failuresPerProjectMinute: 60,
  batchSize: 200,
  batchWindowMs: 50,
};

export interface RequestLogDeps {
  db: Database;
  kv: KeyValue;
  counters: Counters;
  logSampled: SampledLog;
  random?: () => number;
  /**
   * Meter here: each served request's increment goes into usage_buffer in the same transaction as the
   * batch's log rows, so a request is logged and metered or neither. For deployments without a shared
   * Redis (the embedded default), whose in-process buckets would die with the process. Default false.
   */
  metersUsage?: boolean;
}

export interface RequestLog {
  /** Whether record() also meters served requests (usage_buffer); otherwise the caller buffers them in Redis. */
  readonly metersUsage: boolean;
  /** Resolves once the outcome is written, or decided against. Never rejects. */
  record(outcome: RequestOutcome, at: Date): Promise<void>;
  /** Writes what is gathered now (shutdown). */
  drain(): Promise<void>;
}

type Row = typeof requestLog.$inferInsert;

/** A sampled-out success has no row but still its increment. */
interface Pending {
  row: Row | null;
  usage: UsageIncrement | null;
  done: () => void;
}

/**
 * The request log behind the image API: after the response, sampled successes and capped failures
 * (the cap counted in Redis, so it holds across instances) are gathered and written in batches, one
 * INSERT per batch, with the batch's usage increments in the same transaction when this log meters.
 * Only outcomes that name a project are logged: the log is read per project.
 */
export function createRequestLog(
  deps: RequestLogDeps,
  options: RequestLogOptions = defaultRequestLogOptions,
): RequestLog {
  const random = deps.random ?? Math.random;
  const metersUsage = deps.metersUsage ?? false;
  let batch: Pending[] = [];
  let timer: NodeJS.Timeout | null = null;

  async function write(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const taken = batch;
    batch = [];
    if (taken.length === 0) return;
    const rows = taken.flatMap((t) => (t.row ? [t.row] : []));
    const usage = taken.flatMap((t) => (t.usage ? [t.usage] : []));
    try {
      if (usage.length === 0) await deps.db.insert(requestLog).values(rows);
      else
        await deps.db.transaction(async (tx) => {
          if (rows.length > 0) await tx.insert(requestLog).values(rows);
          await addUsage(tx, usage);
        });
      deps.counters.increment("request_log_rows", rows.length);
    } catch (error) {
      if (rows.length > 0) {
        deps.counters.increment("request_log_rows_lost", rows.length);
        deps.logSampled("request-log", "error", "request log rows lost", {
          rows: rows.length,
          ...describeError(error),
        });
      }
      // Rows refused (a project deleted meanwhile fails the whole INSERT) must not take the metering with them.
      if (usage.length > 0) await meterAlone(usage);
    } finally {
      for (const t of taken) t.done();
    }
  }

  async function meterAlone(usage: UsageIncrement[]): Promise<void> {
    try {
      await addUsage(deps.db, usage);
    } catch (error) {
      deps.counters.increment("usage_increment_lost", usage.length);
      deps.logSampled("usage", "error", "usage increments lost", { requests: usage.length, ...describeError(error) });
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
    metersUsage,
    async record(outcome, at) {
      if (!outcome.projectId) return;
      const usage = metersUsage ? meteredIncrement(outcome, at) : null;
      const logged = await admitted({ ...outcome, projectId: outcome.projectId }, at);
      if (!logged) deps.counters.increment("request_log_skipped");
      if (!logged && !usage) return;
      const weight = outcome.status === "success" ? 1 / options.successSampleRate : 1;
      const row = logged ? { ...toRow(outcome, at), weight } : null;
      const written = new Promise<void>((done) => batch.push({ row, usage, done }));
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

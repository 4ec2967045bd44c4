import { inArray } from "drizzle-orm";
import type { Counters } from "@/server/coordination/counters";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { projects, requestLog } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { describeError, type SampledLog } from "@/server/log";
import { meteredIncrement, type UsageIncrement } from "./buffer-usage";
import { addUsage, usageUpsert } from "./database-buffer";
import { createLogAllowance, type RowKind } from "./log-allowance";
import { loggedSourceText, sourceHashOf } from "./logged-source";
import { asOneStatement } from "./one-statement";
import { createStatsAllowances, createStatsBatch } from "./request-stats";
import { requestLogSettings, type RequestLogValues } from "./settings";

export interface RequestLogOptions {
  /** Share of successes written, 0 to 1. */
  successSampleRate: number;
  /**
   * Failures written per project and minute by the whole fleet (log-allowance.ts); a holder of a public
   * key cannot flood the log past it.
   */
  failuresPerProjectMinute: number;
  /**
   * Successes written per project and minute (after sampling) by the whole fleet: cache hits at an
   * address's cap would otherwise add a row each. request_stats counts every request exactly.
   */
  successesPerProjectMinute: number;
  /** Rows gathered before one INSERT; a partial batch is written after `batchWindowMs`. */
  batchSize: number;
  batchWindowMs: number;
}

const logged = requestLogSettings.settings;

export const defaultRequestLogOptions: RequestLogOptions = {
  successSampleRate: logged.OPTSTUFF_REQUEST_LOG_SAMPLE_RATE.default,
  failuresPerProjectMinute: logged.OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE.default,
  successesPerProjectMinute: logged.OPTSTUFF_REQUEST_LOG_SUCCESSES_PER_MINUTE.default,
  batchSize: 200,
  batchWindowMs: 50,
};

export const requestLogOptionsOf = (v: RequestLogValues): RequestLogOptions => ({
  ...defaultRequestLogOptions,
  successSampleRate: v.OPTSTUFF_REQUEST_LOG_SAMPLE_RATE,
  failuresPerProjectMinute: v.OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE,
  successesPerProjectMinute: v.OPTSTUFF_REQUEST_LOG_SUCCESSES_PER_MINUTE,
});

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

/** A sampled-out success has no row but still its increment; a candidate row may still be capped. */
interface Pending {
  row: Row | null;
  kind: RowKind;
  usage: UsageIncrement | null;
  done: () => void;
}

/**
 * The request log behind the image API: after the response, every outcome is counted in the batch's
 * statistics (request_stats), and sampled successes and failures become rows within the caps, which
 * are counted for the whole fleet (log-allowance.ts). A batch is one statement: rows,
 * statistics and, when this log meters, usage increments. Only outcomes that name a project are
 * logged: the log is read per project.
 */
export function createRequestLog(
  deps: RequestLogDeps,
  options: RequestLogOptions = defaultRequestLogOptions,
): RequestLog {
  const random = deps.random ?? Math.random;
  const metersUsage = deps.metersUsage ?? false;
  let batch: Pending[] = [];
  const allowances = createStatsAllowances();
  let stats = createStatsBatch(allowances);
  let timer: NodeJS.Timeout | null = null;
  const allowance = createLogAllowance(deps.kv, {
    success: options.successesPerProjectMinute,
    failure: options.failuresPerProjectMinute,
  });

  async function write(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const taken = batch;
    const counted = stats;
    batch = [];
    stats = createStatsBatch(allowances);
    if (taken.length === 0) return;
    const rows = await cappedRows(taken);
    deps.counters.increment("request_log_skipped", taken.length - rows.length);
    const usage = taken.flatMap((t) => (t.usage ? [t.usage] : []));
    // One statement (one-statement.ts): rows, statistics and usage together or not at all, the busy
    // rows locked for that statement only. Durable only when it meters usage.
    const together = (kept: Row[]) =>
      asOneStatement(
        deps.db,
        [
          kept.length > 0 ? deps.db.insert(requestLog).values(kept) : null,
          ...counted.statements(deps.db),
          usageUpsert(deps.db, usage),
        ],
        { durable: usage.length > 0 },
      );
    try {
      await together(rows).catch(async (error: unknown) => {
        // A project deleted meanwhile fails the batch on its foreign key: the others' rows and
        // statistics are written without it (a tenant deleting projects cannot erase everyone's).
        const gone = await deletedProjects(deps.db, [
          ...new Set([...rows.map((r) => r.projectId), ...counted.projects()]),
        ]);
        if (gone.size === 0) throw error;
        counted.drop(gone);
        const kept = rows.filter((r) => !gone.has(r.projectId));
        await together(kept);
        // The deleted projects' rows: nobody can read them any more, but they were not written.
        deps.counters.increment("request_log_rows_lost", rows.length - kept.length);
        rows.splice(0, rows.length, ...kept);
      });
      deps.counters.increment("request_log_rows", rows.length);
    } catch (error) {
      deps.counters.increment("request_stats_lost", taken.length);
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

  /** The batch's candidate rows the fleet's allowance for their project-minute admits. */
  async function cappedRows(taken: readonly Pending[]): Promise<Row[]> {
    const candidates = taken.flatMap((t) => (t.row ? [{ row: t.row, kind: t.kind }] : []));
    const admitted = await allowance.admit(
      candidates.map(({ row, kind }) => ({ kind, projectId: row.projectId, at: row.createdAt! })),
    );
    return candidates.flatMap(({ row }, i) => (admitted[i] ? [row] : []));
  }

  return {
    metersUsage,
    async record(outcome, at) {
      if (!outcome.projectId) return;
      const ofProject = { ...outcome, projectId: outcome.projectId };
      const usage = metersUsage ? meteredIncrement(outcome, at) : null;
      const kind = outcome.status === "success" ? "success" : "failure";
      // Successes are sampled here; whether a candidate becomes a row is the fleet's cap's (cappedRows).
      const sampled = kind === "failure" || options.successSampleRate >= 1 || random() < options.successSampleRate;
      stats.add(ofProject, at);
      const weight = kind === "success" ? 1 / options.successSampleRate : 1;
      const row = sampled ? { ...toRow(outcome, at), weight } : null;
      const written = new Promise<void>((done) => batch.push({ row, kind, usage, done }));
      if (batch.length >= options.batchSize) void write();
      else timer ??= setTimeout(() => void write(), options.batchWindowMs);
      return written;
    },
    drain: write,
  };
}

/** Which of these projects no longer exist. */
async function deletedProjects(db: Database, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await db
    .select({ id: projects.id })
    .from(projects)
    .where(inArray(projects.id, [...ids]));
  const existing = new Set(found.map((row) => row.id));
  return new Set(ids.filter((id) => !existing.has(id)));
}

function toRow(outcome: RequestOutcome, at: Date): Row {
  return {
    requestId: outcome.requestId,
    projectId: outcome.projectId!,
    apiKeyId: outcome.apiKeyId ?? null,
    status: outcome.status,
    httpStatus: outcome.httpStatus,
    // Already without query and fragment (serve-image keeps scheme, host and path: they can carry tokens).
    sourceUrl: outcome.sourceUrl === undefined ? null : loggedSourceText(outcome.sourceUrl),
    sourceHash: outcome.sourceUrl === undefined ? null : sourceHashOf(outcome.sourceUrl),
    operations: outcome.operations ?? null,
    outputFormat: outcome.outputFormat ?? null,
    quality: outcome.measured?.quality ?? null,
    score: outcome.measured?.score ?? null,
    unreached: outcome.measured?.unreached ?? null,
    sourceBytes: outcome.sourceBytes ?? null,
    outputBytes: outcome.outputBytes ?? null,
    processingMs: Math.round(outcome.durationMs),
    cache: outcome.cache ?? null,
    createdAt: at,
  };
}

import type { Coordination } from "@/server/coordination/create-coordination";
import type { Counters } from "@/server/coordination/counters";
import type { DatabaseHandle } from "@/server/db/client";
import type { LaterQueue } from "@/server/delivery/later-queue";
import type { RequestOutcome } from "@/server/delivery/delivery-types";
import type { TransformScheduler } from "@/server/image";
import type { Transforms } from "@/server/image/isolation/transforms";
import type { Logger, SampledLog } from "@/server/log";
import { createMetrics, type Metrics } from "@/server/metrics/metrics";
import type { ResultStore } from "@/server/result-store/types";
import { TTL_SECONDS } from "@/server/coordination/keys";
import { createActivityMemo } from "./activity-memo";
import { createOutcomeRecorder } from "./record-outcome";
import { createRequestLog, requestLogOptionsOf, type RequestLog } from "./request-log";
import type { RequestLogValues } from "./settings";
import { createUsageWindow, type UsageWindow } from "./usage-window";

export interface UsagePlane {
  requestLog: RequestLog;
  /** Usage increments on their way to the Redis buckets, one write per window. */
  usage: UsageWindow;
  metrics: Metrics;
  /** Runs after the response: never slows or fails the request it describes. */
  recordOutcome(outcome: RequestOutcome): Promise<void>;
}

/** What the plane takes of the clients every plane shares (shared.ts), and of the delivery plane. */
export interface UsageShared {
  database: DatabaseHandle;
  coordination: Coordination;
  counters: Counters;
  logger: Logger;
  logSampled: SampledLog;
  /** What the metrics read of delivery: its transform slots and queue, the later queue, the store. */
  delivery: {
    scheduler: TransformScheduler;
    laterQueue: LaterQueue;
    store: ResultStore | null;
    transforms: Pick<Transforms, "placed">;
  };
}

/** The request log, the metrics and what records each request's outcome in both and in the usage buckets. */
export function createUsagePlane(env: RequestLogValues, shared: UsageShared): UsagePlane {
  const { database, coordination, counters, logger, logSampled, delivery } = shared;
  const { kv, redis } = coordination;
  const metrics = createMetrics({
    counters,
    scheduler: delivery.scheduler,
    later: delivery.laterQueue,
    store: delivery.store,
    placed: delivery.transforms.placed,
    limiterWindows: coordination.windows,
  });
  // Without a shared Redis, usage is buffered in the database with the request log: it survives a crash.
  const options = requestLogOptionsOf(env);
  const requestLog = createRequestLog(
    { db: database.db, kv, counters, logSampled, metersUsage: redis === null },
    options,
  );
  // The request log's window: a request's after-response work already waits that long for its row.
  const usage = createUsageWindow({ kv, counters, logSampled }, options.batchWindowMs);
  const activity = createActivityMemo(TTL_SECONDS.activity * 1000);
  const recordOutcome = createOutcomeRecorder({
    kv,
    db: database.db,
    logger,
    logSampled,
    counters,
    requestLog,
    usage,
    activity,
    metrics,
  });
  return { requestLog, usage, metrics, recordOutcome };
}

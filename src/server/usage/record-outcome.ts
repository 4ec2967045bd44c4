import type { Counters } from "@/server/coordination/counters";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { describeError, type Logger, type SampledLog } from "@/server/log";
import { meteredIncrement } from "./buffer-usage";
import type { RequestLog } from "./request-log";
import { touchActivity, type ActivityDeps } from "./touch-activity";
import type { UsageWindow } from "./usage-window";

export interface OutcomeDeps extends ActivityDeps {
  logger: Logger;
  /** For failures that repeat on every request while Redis is down. */
  logSampled: SampledLog;
  counters: Counters;
  requestLog: RequestLog;
  /** The Redis usage buckets, written once per window (usage-window.ts). */
  usage: UsageWindow;
}

/**
 * Everything that follows a response: the access log line, the request log, metering and activity for
 * served images. Metering goes to the Redis bucket first, before anything else is done, or with the
 * request log's row into the database when the request log meters (no shared Redis).
 * Runs after the response is sent; each part fails alone, logged and counted, never thrown.
 */
/** The recorder the image route calls: metrics first (synchronous, in memory), then recordOutcome. */
export function createOutcomeRecorder(
  deps: OutcomeDeps & { metrics: { observe(outcome: RequestOutcome): void } },
): (outcome: RequestOutcome) => Promise<void> {
  return (outcome) => {
    deps.metrics.observe(outcome);
    return recordOutcome(deps, outcome);
  };
}

export async function recordOutcome(deps: OutcomeDeps, outcome: RequestOutcome, at = new Date()): Promise<void> {
  const increment = meteredIncrement(outcome, at);
  const metered = increment && !deps.requestLog.metersUsage ? deps.usage.add(increment) : null;
  // The variant key is an opaque digest: it says nothing to a reader of the log (the statistics count it).
  const { variant: _variant, ...line } = outcome;
  deps.logger.log("info", "image request", line);
  const logged = deps.requestLog.record(outcome, at);
  if (!increment) return logged;
  await Promise.all([
    metered,
    // An encode finished after its answer is no use of the key: its request touched it.
    increment.requests > 0 &&
      touchActivity(deps, increment, at).catch((error: unknown) => {
        deps.counters.increment("redis_failure_activityThrottle");
        deps.logSampled("activity", "warn", "activity update skipped", {
          requestId: outcome.requestId,
          ...describeError(error),
        });
      }),
    logged,
  ]);
}

import type { Counters } from "@/server/coordination/counters";
import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import { describeError, type SampledLog } from "@/server/log";
import { usageFields, type UsageIncrement } from "./buffer-usage";

export interface UsageWindow {
  /** Resolves once the increment is in its minute's bucket, or counted as lost. Never rejects. */
  add(increment: UsageIncrement): Promise<void>;
  /** Writes what is gathered now (shutdown). */
  drain(): Promise<void>;
}

export interface UsageWindowDeps {
  kv: KeyValue;
  counters: Counters;
  logSampled: SampledLog;
}

/**
 * Usage increments gathered for one short window (the request log's) and added to their minute's
 * bucket together: one MULTI per bucket per window, however many requests it holds, instead of one per
 * request. Each request's after-response work waits for its window as it waits for its log row, so a
 * function is not frozen with its increment unwritten, and the window adds nothing to how long it lives.
 */
export function createUsageWindow(deps: UsageWindowDeps, windowMs: number): UsageWindow {
  let buckets = new Map<string, { fields: Record<string, number>; requests: number }>();
  let waiting: Array<() => void> = [];
  let timer: NodeJS.Timeout | null = null;

  async function write(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const taken = buckets;
    const done = waiting;
    buckets = new Map();
    waiting = [];
    await Promise.all(
      [...taken].map(async ([key, { fields, requests }]) => {
        try {
          await withBudget("usageIncrement", deps.kv.incrementHash(key, fields, TTL_SECONDS.usageBucket));
        } catch (error) {
          deps.counters.increment("usage_increment_lost", requests);
          deps.logSampled("usage", "error", "usage increments lost", { requests, ...describeError(error) });
        }
      }),
    );
    for (const resolve of done) resolve();
  }

  return {
    add(increment) {
      const key = redisKeys.usageBucket(increment.at);
      const bucket = buckets.get(key) ?? { fields: {}, requests: 0 };
      buckets.set(key, bucket);
      for (const [field, by] of Object.entries(usageFields(increment)))
        bucket.fields[field] = (bucket.fields[field] ?? 0) + by;
      // What is lost if the write fails: the requests (an encode finished after its answer is none).
      bucket.requests += increment.requests;
      const written = new Promise<void>((resolve) => waiting.push(resolve));
      timer ??= setTimeout(() => void write(), windowMs);
      return written;
    },
    drain: write,
  };
}

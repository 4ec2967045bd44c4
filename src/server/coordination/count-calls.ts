import type { Counters } from "./counters";
import type { KeyValue, RateLimiter } from "./types";

/**
 * Counts each call the product makes to Redis (`redis_calls_<operation>`), for /api/metrics. A call is
 * one command or script; calls made in one tick share an HTTP round trip (auto-pipelining).
 */
export function countCalls<T extends KeyValue | RateLimiter>(
  target: T,
  counters: Counters,
  rename: (name: string) => string = (n) => n,
): T {
  const counted = { ...target } as Record<string, unknown>;
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== "function") continue;
    counted[name] = (...args: unknown[]) => {
      counters.increment(`redis_calls_${rename(name)}`);
      return (value as (...a: unknown[]) => unknown).apply(target, args);
    };
  }
  return counted as T;
}

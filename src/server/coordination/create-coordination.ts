import { countCalls } from "./count-calls";
import type { Counters } from "./counters";
import { createMemoryKeyValue } from "./memory-key-value";
import { isAddressSubject } from "./keys";
import { createMemoryRateLimiter } from "./memory-rate-limiter";
import { withRefusalMemo } from "./refusal-memo";
import type { KeyValue, MemoRateLimiter } from "./types";
import { createUpstashClient, type UpstashSettings } from "./upstash-client";
import { createUpstashKeyValue } from "./upstash-key-value";
import { createUpstashRateLimiter } from "./upstash-rate-limiter";

export interface Coordination {
  /** Usage buckets, throttles and locks: Upstash when configured, else in this process. */
  kv: KeyValue;
  /**
   * The same store when every instance shares it (Upstash); null in process. What only makes sense
   * across instances (the config tier in Redis, invalidation, the transform lease) asks for this.
   */
  redis: KeyValue | null;
  limiter: MemoRateLimiter;
  /** Windows the in-process limiter holds; null with Redis. */
  windows: (() => { addresses: number; others: number }) | null;
}

/** Upstash when configured, else in-process implementations of the same interfaces (one instance only). */
export function createCoordination(
  upstash: UpstashSettings | null,
  options: { rateLimitTimeoutMs?: number; counters?: Counters; maxAddresses?: number } = {},
): Coordination {
  if (!upstash) {
    const limiter = createMemoryRateLimiter({ isAddress: isAddressSubject, maxAddresses: options.maxAddresses });
    return {
      kv: createMemoryKeyValue(),
      redis: null,
      limiter: withRefusalMemo(limiter),
      windows: () => limiter.size(),
    };
  }
  const redis = createUpstashClient(upstash);
  let kv = createUpstashKeyValue(redis);
  let limiter = createUpstashRateLimiter(redis, { timeoutMs: options.rateLimitTimeoutMs });
  if (options.counters) {
    kv = countCalls(kv, options.counters);
    limiter = countCalls(limiter, options.counters, (name) => `ratelimit_${name}`);
  }
  return { kv, redis: kv, limiter: withRefusalMemo(limiter), windows: null };
}

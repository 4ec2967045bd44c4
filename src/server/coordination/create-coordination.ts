import type { Redis } from "@upstash/redis";
import { countCalls } from "./count-calls";
import type { Counters } from "./counters";
import { createMemoryKeyValue } from "./memory-key-value";
import { createMemoryRateLimiter } from "./memory-rate-limiter";
import { withRefusalMemo } from "./refusal-memo";
import type { KeyValue, MemoRateLimiter } from "./types";
import { createUpstashClient, type UpstashSettings } from "./upstash-client";
import { createUpstashKeyValue } from "./upstash-key-value";
import { createUpstashRateLimiter } from "./upstash-rate-limiter";

export interface Coordination {
  kv: KeyValue;
  limiter: MemoRateLimiter;
  /** The raw client for what the narrow interfaces do not cover (the flush); null in process. */
  redis: Redis | null;
}

/** Upstash when configured, else in-process implementations of the same interfaces (one instance only). */
export function createCoordination(upstash: UpstashSettings | null, options: { rateLimitTimeoutMs?: number; counters?: Counters } = {}): Coordination {
  if (!upstash) return { kv: createMemoryKeyValue(), limiter: withRefusalMemo(createMemoryRateLimiter()), redis: null };
  const redis = createUpstashClient(upstash);
  let kv = createUpstashKeyValue(redis);
  let limiter = createUpstashRateLimiter(redis, { timeoutMs: options.rateLimitTimeoutMs });
  if (options.counters) {
    kv = countCalls(kv, options.counters);
    limiter = countCalls(limiter, options.counters, (name) => `ratelimit_${name}`);
  }
  return { kv, limiter: withRefusalMemo(limiter), redis };
}

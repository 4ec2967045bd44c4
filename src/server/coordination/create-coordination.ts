import { countCalls } from "./count-calls";
import type { Counters } from "./counters";
import { createMemoryKeyValue } from "./memory-key-value";
import { isAddressSubject } from "./keys";
import { createMemoryRateLimiter } from "./memory-rate-limiter";
import { withRefusalMemo } from "./refusal-memo";
import type { RedisSettings } from "./settings";
import { closeTcpClient, createTcpClient } from "./tcp-client";
import { createTcpKeyValue } from "./tcp-key-value";
import { limiterRedisOver } from "./tcp-limiter-redis";
import type { KeyValue, MemoRateLimiter, RateLimiter } from "./types";
import { createUpstashClient } from "./upstash-client";
import { createUpstashKeyValue } from "./upstash-key-value";
import { createUpstashRateLimiter } from "./upstash-rate-limiter";

export interface Coordination {
  /** Usage buckets, throttles and locks: the shared Redis when configured, else in this process. */
  kv: KeyValue;
  /**
   * The same store when every instance shares it (Redis); null in process. What only makes sense
   * across instances (the config tier in Redis, invalidation, the transform lease) asks for this.
   */
  redis: KeyValue | null;
  limiter: MemoRateLimiter;
  /** Windows the in-process limiter holds; null with Redis. */
  windows: (() => { addresses: number; others: number }) | null;
  /** How the shared Redis is reached; null in process. */
  transport: RedisSettings["transport"] | null;
  /** Ends the connection a TCP client holds (nothing to end over REST or in process). */
  close(): Promise<void>;
}

/**
 * The shared Redis when configured, over TCP (REDIS_URL) or Upstash REST, else in-process
 * implementations of the same interfaces (one instance only).
 */
export function createCoordination(
  settings: RedisSettings | null,
  options: { rateLimitTimeoutMs?: number; counters?: Counters; maxAddresses?: number } = {},
): Coordination {
  if (!settings) {
    const limiter = createMemoryRateLimiter({ isAddress: isAddressSubject, maxAddresses: options.maxAddresses });
    return {
      kv: createMemoryKeyValue(),
      redis: null,
      limiter: withRefusalMemo(limiter),
      windows: () => limiter.size(),
      transport: null,
      close: async () => {},
    };
  }
  let kv: KeyValue;
  let limiter: RateLimiter;
  let close = async () => {};
  const limiterOptions = { timeoutMs: options.rateLimitTimeoutMs };
  if (settings.transport === "tcp") {
    const client = createTcpClient(settings.url, options.counters);
    kv = createTcpKeyValue(client);
    limiter = createUpstashRateLimiter(limiterRedisOver(client), limiterOptions);
    close = () => closeTcpClient(client);
  } else {
    const client = createUpstashClient(settings);
    kv = createUpstashKeyValue(client);
    limiter = createUpstashRateLimiter(client, limiterOptions);
  }
  if (options.counters) {
    kv = countCalls(kv, options.counters);
    limiter = countCalls(limiter, options.counters, (name) => `ratelimit_${name}`);
  }
  return { kv, redis: kv, limiter: withRefusalMemo(limiter), windows: null, transport: settings.transport, close };
}

import { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import { failurePolicy } from "./failure-policy";
import { keySpecs, redisKeys } from "./keys";
import type { LimitWindow, RateLimiter } from "./types";
import { WINDOW_DURATION } from "./windows";

/**
 * @upstash/ratelimit sliding windows. One Ratelimit per (window, maximum), built once and kept: its
 * in-memory cache of blocked identifiers only works across requests on the same instance, and it lets
 * a request for an identifier known to be over its limit be refused without a round trip.
 * Its own timeout implements the fail-open policy.
 */
export function createUpstashRateLimiter(redis: Redis): RateLimiter {
  const limiters = new Map<string, Ratelimit>();
  const prefixes: Record<LimitWindow, string> = {
    minute: keySpecs.rateLimitMinute.prefix.slice(0, -1),
    day: keySpecs.rateLimitDay.prefix.slice(0, -1),
  };

  function limiterFor(window: LimitWindow, max: number): Ratelimit {
    const id = `${window}:${max}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(max, WINDOW_DURATION[window]),
        prefix: prefixes[window],
        ephemeralCache: new Map(),
        timeout: failurePolicy.rateLimit.timeoutMs,
        analytics: false,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  }

  return {
    async limit(window, identifier, max) {
      const result = await limiterFor(window, max).limit(redisKeys.rateLimitIdentifier(identifier));
      result.pending.catch(() => {});
      return {
        success: result.success,
        limit: result.limit,
        remaining: result.remaining,
        reset: result.reset,
        failedOpen: result.reason === "timeout",
      };
    },
    async reset(identifier) {
      const tagged = redisKeys.rateLimitIdentifier(identifier);
      const windows = Object.keys(prefixes) as LimitWindow[];
      // Any maximum works: the keys depend on the prefix and identifier only.
      await Promise.all(windows.map((window) => limiterFor(window, 1).resetUsedTokens(tagged)));
    },
  };
}

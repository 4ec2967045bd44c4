import { Ratelimit } from "@upstash/ratelimit";
import { failurePolicy } from "./failure-policy";
import { keySpecs, redisKeys } from "./keys";
import type { LimitWindow, RateLimiter } from "./types";
import { WINDOW_DURATION } from "./windows";

/** What @upstash/ratelimit runs its scripts through: the Upstash client, or one over TCP (tcp-limiter-redis.ts). */
export type LimiterRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

/**
 * @upstash/ratelimit sliding windows, one Ratelimit per (window, maximum), built once and kept. The
 * library's own cache of blocked identifiers is off: refusals are remembered once, for every limiter,
 * by refusal-memo.ts (which bounds how long a reset or a raised limit elsewhere goes unseen). Its own
 * timeout implements the fail-open policy.
 */
export function createUpstashRateLimiter(redis: LimiterRedis, options: { timeoutMs?: number } = {}): RateLimiter {
  const timeoutMs = options.timeoutMs ?? failurePolicy.rateLimit.timeoutMs;
  const limiters = new Map<string, Ratelimit>();
  const prefixes: Record<LimitWindow, string> = {
    minute: keySpecs.rateLimitMinute.prefix.slice(0, -1),
    quarterHour: keySpecs.rateLimitQuarterHour.prefix.slice(0, -1),
    hour: keySpecs.rateLimitHour.prefix.slice(0, -1),
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
        ephemeralCache: false,
        timeout: timeoutMs,
        analytics: false,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  }

  return {
    async limit(window, identifier, max, tokens = 1) {
      const tagged = redisKeys.rateLimitIdentifier(identifier);
      const result = await limiterFor(window, max).limit(tagged, tokens === 1 ? undefined : { rate: tokens });
      result.pending.catch(() => {});
      return {
        success: result.success,
        limit: result.limit,
        remaining: result.remaining,
        reset: result.reset,
        failedOpen: result.reason === "timeout",
      };
    },
    async refund(window, identifier, max) {
      // A negative rate gives tokens back (the library's script skips the limit check for it).
      const result = await limiterFor(window, max).limit(redisKeys.rateLimitIdentifier(identifier), { rate: -1 });
      result.pending.catch(() => {});
    },
    async used(window, identifier, max) {
      const { remaining } = await limiterFor(window, max).getRemaining(redisKeys.rateLimitIdentifier(identifier));
      return Math.max(0, max - remaining);
    },
    async reset(identifier) {
      const tagged = redisKeys.rateLimitIdentifier(identifier);
      // The keys depend on prefix and identifier only, so one reset per window clears every maximum's.
      const windows = Object.keys(prefixes) as LimitWindow[];
      await Promise.all(windows.map((window) => limiterFor(window, 1).resetUsedTokens(tagged)));
    },
    async warmUp() {
      // No timeout here (0 disables it): the point is to wait until the script is loaded.
      const warm = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(1_000_000, WINDOW_DURATION.minute),
        prefix: keySpecs.rateLimitWarmUp.prefix.slice(0, -1),
        timeout: 0,
        analytics: false,
      });
      await warm.limit(redisKeys.rateLimitIdentifier("warmup"));
    },
  };
}

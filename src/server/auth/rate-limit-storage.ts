import type { RateLimiter } from "@/server/coordination/types";

/**
 * better-auth's rate-limit storage on top of the product's limiter, so the auth endpoints are limited
 * across every instance (Redis) or in process on the embedded default, with the same sliding windows
 * as the image API. Our limiter knows minute and day windows; a rule with another window is scaled
 * to the nearest one (3 per 10 s becomes 18 per minute), which keeps its average rate.
 */
export function createAuthRateLimitStorage(limiter: RateLimiter) {
  return {
    async consume(
      key: string,
      rule: { window: number; max: number },
    ): Promise<{ allowed: boolean; retryAfter: number | null }> {
      const daily = rule.window > 3600;
      const span = daily ? 86_400 : 60;
      const max = Math.max(1, Math.ceil((rule.max * span) / Math.max(1, rule.window)));
      const result = await limiter.limit(daily ? "day" : "minute", `auth:${key}`, max);
      if (result.success) return { allowed: true, retryAfter: null };
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((result.reset - Date.now()) / 1000)) };
    },
  };
}

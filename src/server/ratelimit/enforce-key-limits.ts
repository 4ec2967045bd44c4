import type { ApiKeyConfig } from "@/server/config-cache";
import type { Counters } from "@/server/coordination/counters";
import { failurePolicy } from "@/server/coordination/failure-policy";
import type { LimitResult, LimitWindow, RateLimiter } from "@/server/coordination/types";
import { AppError } from "@/server/errors";
import { describeError, type SampledLog } from "@/server/log";

export interface KeyLimitDeps {
  limiter: RateLimiter;
  logSampled: SampledLog;
  counters: Counters;
  now: () => number;
}

/**
 * Per-key sliding windows, minute first, then day, each consuming a token only if the one before
 * admitted the request. Every order wastes something; this one wastes the least:
 * - day first (the reference): every request refused by the minute window has already spent a day
 *   token, so a client bursting over its minute limit drains its whole day budget in minutes;
 * - both at once (one round trip): the same waste, plus minute tokens spent on day-refused requests;
 * - minute first (ours): a day-refused request spends one minute token, which the window returns
 *   within 60 s; minute-refused requests never touch the day window. Cost: a second round trip, only
 *   for requests the minute window admitted.
 * A limiter failure lets the request through (failure-policy.ts).
 */
export async function enforceKeyLimits(apiKey: ApiKeyConfig, deps: KeyLimitDeps): Promise<void> {
  const minute = await limitOrAdmit("minute", apiKey, apiKey.rateLimitPerMinute, deps);
  if (!minute.success) throw refusal(minute, deps.now());
  const day = await limitOrAdmit("day", apiKey, apiKey.rateLimitPerDay, deps);
  if (!day.success) throw refusal(day, deps.now());
}

async function limitOrAdmit(window: LimitWindow, apiKey: ApiKeyConfig, max: number, deps: KeyLimitDeps): Promise<LimitResult> {
  try {
    const result = await deps.limiter.limit(window, apiKey.publicKey, max);
    if (result.failedOpen) failedOpen(deps, window, new Error("rate limiter timed out"));
    return result;
  } catch (error) {
    failedOpen(deps, window, error);
    return { success: true, limit: max, remaining: max, reset: deps.now(), failedOpen: true };
  }
}

function failedOpen(deps: KeyLimitDeps, window: LimitWindow, error: unknown): void {
  deps.counters.increment("ratelimit_fail_open");
  deps.logSampled("ratelimit", "warn", "rate limit skipped", { window, policy: failurePolicy.rateLimit.onFailure, ...describeError(error) });
}

export function refusal(result: LimitResult, nowMs: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((result.reset - nowMs) / 1000));
  return new AppError("RATE_LIMITED", {
    detail: `limit ${result.limit} reached`,
    headers: {
      "Retry-After": String(retryAfter),
      "X-RateLimit-Limit": String(result.limit),
      "X-RateLimit-Remaining": String(Math.max(0, result.remaining)),
      "X-RateLimit-Reset": String(Math.ceil(result.reset / 1000)),
    },
  });
}

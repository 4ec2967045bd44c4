import type { ApiKeyConfig } from "@/server/config-cache";
import type { Counters } from "@/server/coordination/counters";
import { failurePolicy } from "@/server/coordination/failure-policy";
import type { LimitResult, LimitWindow, MemoRateLimiter } from "@/server/coordination/types";
import { AppError } from "@/server/errors";
import { describeError, type SampledLog } from "@/server/log";

export interface KeyLimitDeps {
  limiter: MemoRateLimiter;
  logSampled: SampledLog;
  counters: Counters;
  now: () => number;
}

/**
 * Per-key sliding windows, minute and day, asked in one round trip (both calls leave in one pipeline),
 * and the token of a window that admitted a request the other refused is given back (refund, after the
 * decision, never awaited). So neither order's waste happens: the reference checks the day first and
 * every minute-refused request spends a day token (a client bursting over its minute limit drains its
 * day budget in minutes); checking one after the other costs a second round trip. A refusal still in
 * force is answered from memory without Redis (refusal-memo.ts). A limiter failure lets the request
 * through (failure-policy.ts).
 */
export async function enforceKeyLimits(apiKey: ApiKeyConfig, deps: KeyLimitDeps): Promise<void> {
  const perMinute = apiKey.rateLimitPerMinute;
  const perDay = apiKey.rateLimitPerDay;
  const known = deps.limiter.knownRefusal("minute", apiKey.publicKey, perMinute) ?? deps.limiter.knownRefusal("day", apiKey.publicKey, perDay);
  if (known) throw refusal(known, deps.now());
  const [minute, day] = await Promise.all([limitOrAdmit("minute", apiKey, perMinute, deps), limitOrAdmit("day", apiKey, perDay, deps)]);
  if (minute.success && day.success) return;
  if (minute.success && !minute.failedOpen) giveBack("minute", apiKey.publicKey, perMinute, deps);
  if (day.success && !day.failedOpen) giveBack("day", apiKey.publicKey, perDay, deps);
  throw refusal(minute.success ? day : minute, deps.now());
}

function giveBack(window: LimitWindow, publicKey: string, max: number, deps: KeyLimitDeps): void {
  deps.limiter.refund(window, publicKey, max).catch((error: unknown) => {
    deps.counters.increment("ratelimit_refund_failed");
    deps.logSampled("ratelimit-refund", "warn", "rate limit refund failed", { window, ...describeError(error) });
  });
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

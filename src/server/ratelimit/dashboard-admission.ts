import type { LimitResult, LimitWindow, MemoRateLimiter } from "@/server/coordination/types";
import { AppError } from "@/server/errors";
import type { WindowLimit } from "./dashboard-limits";

/** Takes a token from per-account or per-team windows, or refuses. */
export interface DashboardAdmission {
  /**
   * One token from each window for `id` (a user's or a team's id), asked at once; when one refuses, the
   * others get theirs back and DASHBOARD_RATE_LIMITED names the refusing window, with Retry-After.
   */
  admit(limits: readonly WindowLimit[], id: string): Promise<void>;
}

export interface DashboardAdmissionDeps {
  /** The coordination limiter, built once (its refusal memo answers a hammering client without Redis). */
  limiter: MemoRateLimiter;
  now: () => number;
  /**
   * The limiter failed or timed out (Redis away): the call goes on, as every limit fails open
   * (coordination/failure-policy.ts `rateLimit`); the caller counts and logs it.
   */
  onLimiterError(error: unknown): void;
}

interface Check {
  limit: WindowLimit;
  identifier: string;
}

export function createDashboardAdmission(deps: DashboardAdmissionDeps): DashboardAdmission {
  async function take(check: Check): Promise<LimitResult> {
    const { window, max } = check.limit;
    try {
      const result = await deps.limiter.limit(window, check.identifier, max);
      if (result.failedOpen) deps.onLimiterError(new Error("rate limiter timed out"));
      return result;
    } catch (error) {
      deps.onLimiterError(error);
      return { success: true, limit: max, remaining: max, reset: deps.now(), failedOpen: true };
    }
  }

  return {
    async admit(limits, id) {
      if (limits.length === 0) return;
      const checks = limits.map((limit) => ({ limit, identifier: limit.subject(id) }));
      for (const check of checks) {
        const known = deps.limiter.knownRefusal(check.limit.window, check.identifier, check.limit.max);
        if (known) throw refusal(check.limit, known, deps.now());
      }
      const results = await Promise.all(checks.map(take));
      const refused = checks.flatMap((check, i) => (results[i]!.success ? [] : [{ check, result: results[i]! }]));
      if (refused.length === 0) return;
      checks.forEach((check, i) => {
        if (!results[i]!.success || results[i]!.failedOpen) return;
        deps.limiter.refund(check.limit.window, check.identifier, check.limit.max).catch(deps.onLimiterError);
      });
      // The window that frees capacity last: retrying before its reset cannot succeed.
      const last = refused.reduce((a, b) => (b.result.reset > a.result.reset ? b : a));
      throw refusal(last.check.limit, last.result, deps.now());
    },
  };
}

const PER_WINDOW: Record<LimitWindow, string> = {
  minute: "a minute",
  quarterHour: "in 15 minutes",
  hour: "an hour",
  day: "a day",
};

/** "Too many changes: an account may make at most 60 changes a minute. Try again in 12 s." */
function refusal(limit: WindowLimit, result: LimitResult, nowMs: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((result.reset - nowMs) / 1000));
  const wait = retryAfter < 120 ? `${retryAfter} s` : `${Math.ceil(retryAfter / 60)} min`;
  const who = limit.per === "account" ? "an account" : "a team";
  return new AppError("DASHBOARD_RATE_LIMITED", {
    message: `Too many ${limit.what}: ${who} may make at most ${limit.max} ${limit.what} ${PER_WINDOW[limit.window]}. Try again in ${wait}.`,
    detail: `${limit.subject("…")} ${limit.window} limit ${limit.max} reached`,
    headers: { "Retry-After": String(retryAfter) },
  });
}

import { createHash } from "node:crypto";
import type { LimitWindow, RateLimiter } from "@/server/coordination/types";
import { AppError } from "@/server/errors";

/**
 * Wrong passwords per account before its sign-in is refused, and over which sliding window. The
 * per-address limit (better-auth's rule in create-auth.ts) stops one machine; this stops many
 * machines guessing one password. A window, not a lockout: an attack only keeps the account closed
 * while it goes on, and the owner gets in at most one window (15 minutes) after it stops.
 */
export const SIGN_IN_FAILURES = { window: "quarterHour", max: 10 } as const satisfies {
  window: LimitWindow;
  max: number;
};

export interface SignInAttempt {
  /** With the status better-auth answered: only a wrong password (401) keeps the token taken. */
  settle(status: number): Promise<void>;
}

export interface SignInFailureLimit {
  /** Before the password is checked: takes a token from the account's window, or throws 429. */
  begin(email: string): Promise<SignInAttempt>;
}

export interface SignInFailureOptions {
  now?: () => number;
  /** The limiter failed (Redis down): the attempt goes on, as every limit fails open (redis-schema.md). */
  onLimiterError?: (error: unknown) => void;
}

/**
 * Counts failures by taking a token before every attempt and giving it back unless the password was
 * wrong: a check that only counted after the fact would let a burst of concurrent guesses all through.
 * Shared by every instance through the coordination limiter (Redis), in process on the embedded default.
 */
export function createSignInFailureLimit(limiter: RateLimiter, options: SignInFailureOptions = {}): SignInFailureLimit {
  const now = options.now ?? Date.now;
  const { window, max } = SIGN_IN_FAILURES;
  const noop: SignInAttempt = { settle: async () => {} };

  return {
    async begin(email) {
      const identifier = accountIdentifier(email);
      let result;
      try {
        result = await limiter.limit(window, identifier, max);
      } catch (error) {
        options.onLimiterError?.(error);
        return noop;
      }
      if (!result.success) {
        const retryAfter = Math.max(1, Math.ceil((result.reset - now()) / 1000));
        throw new AppError("RATE_LIMITED", {
          message: "Too many failed sign-ins for this account: try again in a few minutes",
          headers: { "Retry-After": String(retryAfter) },
        });
      }
      if (result.failedOpen) return noop;
      return {
        async settle(status) {
          if (status === 401) return;
          await limiter.refund(window, identifier, max).catch((error: unknown) => options.onLimiterError?.(error));
        },
      };
    },
  };
}

/**
 * One identifier per account however the address is typed (better-auth compares e-mails in lower
 * case), hashed so that no address is written to Redis or shows in its keys.
 */
function accountIdentifier(email: string): string {
  const normalised = email.trim().toLowerCase();
  return `signin:${createHash("sha256").update(normalised).digest("base64url").slice(0, 32)}`;
}

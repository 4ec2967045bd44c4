import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { type AppError } from "@/server/errors";
import { refusal } from "./request-limits";

export interface AuthFailureGuard {
  /** Before any lookup: refuses an address that recently failed authentication too often. */
  assertAllowed(address: string): void;
  /** After a 401 or a bad signature. */
  recordFailure(address: string): Promise<void>;
}

/**
 * The pre-auth limit. It counts authentication failures per client address, in process, so it costs
 * nothing on the path of a valid request and never throttles an office whose hundred employees load a
 * page of images through one address; it stops key enumeration and signature guessing. Per instance:
 * with N instances an attacker gets N times the budget, still far too little to guess anything.
 */
export function createAuthFailureGuard(options: {
  maxFailuresPerMinute: number;
  now?: () => number;
}): AuthFailureGuard {
  const now = options.now ?? Date.now;
  const failures = createMemoryRateLimiter({ now, isAddress: () => true, maxAddresses: 50_000 });
  const blockedUntil = new Map<string, { until: number; limit: number }>();

  return {
    assertAllowed(address) {
      const block = blockedUntil.get(address);
      if (!block) return;
      if (block.until <= now()) {
        blockedUntil.delete(address);
        return;
      }
      throw refusal({ success: false, limit: block.limit, remaining: 0, reset: block.until }, now());
    },
    async recordFailure(address) {
      const result = await failures.limit("minute", address, options.maxFailuresPerMinute);
      // The failure that uses up the allowance closes the door for the rest of the window.
      if (!result.success || result.remaining === 0) {
        // A fast path in front of the limiter, which never forgets a refusing window: what is dropped
        // here (the expired first) is blocked again by the limiter at its next failure.
        if (blockedUntil.size > 50_000) {
          for (const [key, block] of blockedUntil) if (block.until <= now()) blockedUntil.delete(key);
          if (blockedUntil.size > 50_000) blockedUntil.delete(blockedUntil.keys().next().value!);
        }
        blockedUntil.set(address, { until: result.reset, limit: result.limit });
      }
    },
  };
}

/** Authentication failures that count toward the guard. */
export function isAuthFailure(error: AppError): boolean {
  return error.status === 401 || error.code === "SIGNATURE_INVALID";
}

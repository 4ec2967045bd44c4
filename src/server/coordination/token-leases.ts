import type { LimitResult, LimitWindow, MemoRateLimiter } from "./types";

/**
 * How long reserved tokens are spent from memory. Short next to the shortest window reserved from (a
 * minute): a token spent up to a second after it was counted moves the window's slide by that much.
 */
export const LEASE_MS = 1_000;
/** The most one reservation takes, in all and as a share of the window's maximum. */
export const MAX_LEASE = 16;
const SHARE_OF_MAX = 32;

/** The largest reservation for a window of this maximum: at least one token. */
export const leaseCap = (max: number) => Math.max(1, Math.min(MAX_LEASE, Math.floor(max / SHARE_OF_MAX)));
const MAX_ENTRIES = 10_000;

interface Lease {
  /** Reserved and not yet spent. */
  tokens: number;
  /** What is left then is not spent: it was counted in the window, and stays counted. */
  until: number;
  /** What the last reservation took: the next one doubles it while the demand keeps up. */
  size: number;
  /** What the window had left after the last reservation (other instances' spending since unknown). */
  remaining: number;
  reset: number;
  /** Requests that came while the reservation was on its way: demand the next one is sized for. */
  waiting: number;
  pending: Promise<LimitResult> | null;
}

/**
 * Tokens reserved a few at a time per (window, identifier, maximum) and spent from memory, so a busy
 * identifier asks the shared limiter once per reservation instead of once per request (issue: shared
 * tiers written once per request). A reservation starts at one token and doubles while requests use
 * each up before it lapses or wait for it, up to MAX_LEASE and 1/32 of the maximum, and never above
 * half of what the window was last known to hold, so one instance alone is exact at the limit.
 *
 * What it costs: tokens a reservation took and nobody spent before it lapsed are not given back (that
 * would cost the call the reservation saved), so a window is stricter, never looser, by at most one
 * lease's unspent part per instance; and with several instances, a reservation can find fewer tokens
 * than it asks for and be refused (it took them; the library's script does that). Both are bounded by
 * the lease size, which is small next to the maximum by construction. A token given back (a failed
 * source, another window's refusal) goes back to the shared window, as before: the refusal of one
 * window never spends another's budget, even for the second a reservation lasts.
 */
export function withTokenLeases(inner: MemoRateLimiter, now: () => number = Date.now): MemoRateLimiter {
  const leases = new Map<string, Lease>();
  const keyOf = (window: LimitWindow, identifier: string, max: number) => `${window}|${max}|${identifier}`;

  function spend(lease: Lease, max: number): LimitResult {
    lease.tokens -= 1;
    return { success: true, limit: max, remaining: Math.max(0, lease.remaining + lease.tokens), reset: lease.reset };
  }

  function sizeAfter(lease: Lease | undefined, max: number, at: number): number {
    const keptUp = lease !== undefined && (lease.until > at || lease.waiting > 0);
    if (!keptUp) return 1;
    const wanted = Math.max(lease.size * 2, lease.waiting + 1);
    return Math.max(1, Math.min(wanted, leaseCap(max), Math.floor(lease.remaining / 2)));
  }

  function keep(key: string, lease: Lease): void {
    leases.delete(key); // re-insert: Map order is age, the oldest goes first when full
    if (leases.size >= MAX_ENTRIES) leases.delete(leases.keys().next().value!);
    leases.set(key, lease);
  }

  async function reserve(window: LimitWindow, identifier: string, max: number, key: string): Promise<LimitResult> {
    const previous = leases.get(key);
    const size = sizeAfter(previous, max, now());
    const lease: Lease = { tokens: 0, until: 0, size: 1, remaining: 0, reset: 0, waiting: 0, pending: null };
    lease.pending = inner.limit(window, identifier, max, size);
    keep(key, lease);
    let result: LimitResult;
    try {
      result = await lease.pending;
    } finally {
      lease.pending = null;
    }
    // A refusal, or a limiter that failed open, reserves nothing.
    if (!result.success || result.failedOpen) return result;
    Object.assign(lease, {
      tokens: size - 1,
      until: now() + LEASE_MS,
      size,
      remaining: result.remaining,
      reset: result.reset,
    });
    return { ...result, remaining: result.remaining + lease.tokens };
  }

  return {
    ...inner,
    async limit(window, identifier, max) {
      const key = keyOf(window, identifier, max);
      for (;;) {
        const lease = leases.get(key);
        if (lease && lease.tokens > 0 && lease.until > now()) return spend(lease, max);
        if (!lease?.pending) return reserve(window, identifier, max, key);
        lease.waiting += 1;
        const result = await lease.pending;
        // The refusal (or the failure to ask) answers everyone who waited for it.
        if (!result.success || result.failedOpen) return result;
      }
    },
    async reset(identifier) {
      for (const key of [...leases.keys()]) if (key.endsWith(`|${identifier}`)) leases.delete(key);
      await inner.reset(identifier);
    },
  };
}

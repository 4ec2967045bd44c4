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

/** One call to the shared limiter on its way, and the requests it already stands for. */
interface Reservation {
  size: number;
  claimed: number;
  answer: Promise<LimitResult>;
}

interface Lease {
  /** Reserved and promised to nobody. */
  tokens: number;
  /** What is left then is not spent: it was counted in the window, and stays counted. */
  until: number;
  /** The largest recent reservation: the next one doubles it while the demand keeps up. */
  size: number;
  /** What the window had left after the last answer (other instances' spending since unknown). */
  remaining: number;
  reset: number;
  inFlight: Reservation[];
}

/**
 * Tokens reserved a few at a time per (window, identifier, maximum) and spent from memory, so a busy
 * identifier asks the shared limiter once per reservation instead of once per request (issue: shared
 * tiers written once per request). A reservation starts at one token and doubles while the demand
 * keeps up (the last one was spent before it lapsed, or every reservation on its way is promised),
 * up to MAX_LEASE and 1/32 of the maximum, and never above half of what the window was last known to
 * hold, so one instance alone is exact at the limit. A request waits for one call at most: it joins a
 * reservation on its way that still has room, or starts one of its own beside it. So a burst of 31
 * requests costs five calls at once (1, 2, 4, 8 and 16 tokens), not 31, and none waits for another's.
 *
 * What it costs: tokens a reservation took and nobody spent before it lapsed are not given back (that
 * would cost the call the reservation saved), so a window is stricter by at most one lease's unspent
 * part per instance; and with several instances, a reservation can find fewer tokens than it asks for
 * and be refused (it took them; the library's script does that). Both are bounded by the lease size,
 * small next to the maximum by construction. A token given back (a failed source, another window's
 * refusal) goes back to the shared window, as before, so one window's refusal never spends another's
 * budget; given back after the window turned, it lands in the new window (one token, as before).
 */
export function withTokenLeases(inner: MemoRateLimiter, now: () => number = Date.now): MemoRateLimiter {
  const leases = new Map<string, Lease>();
  const keyOf = (window: LimitWindow, identifier: string, max: number) => `${window}|${max}|${identifier}`;

  function leaseOf(key: string): Lease {
    const lease = leases.get(key) ?? {
      tokens: 0,
      until: 0,
      size: 0,
      remaining: Number.POSITIVE_INFINITY,
      reset: 0,
      inFlight: [],
    };
    leases.delete(key); // re-insert: Map order is age, the oldest goes first when full
    if (leases.size >= MAX_ENTRIES) leases.delete(leases.keys().next().value!);
    leases.set(key, lease);
    return lease;
  }

  function sizeFor(lease: Lease, max: number, at: number): number {
    const keptUp = lease.inFlight.length > 0 || lease.until > at;
    if (!keptUp) return 1;
    const largest = Math.max(lease.size, ...lease.inFlight.map((r) => r.size));
    return Math.max(1, Math.min(2 * largest, leaseCap(max), Math.floor(lease.remaining / 2)));
  }

  function reserve(lease: Lease, window: LimitWindow, identifier: string, max: number): Reservation {
    const size = sizeFor(lease, max, now());
    const reservation: Reservation = { size, claimed: 1, answer: inner.limit(window, identifier, max, size) };
    lease.inFlight.push(reservation);
    // Once answered, what nobody claimed is there for the next requests; claimed tokens are spent.
    const settle = (result: LimitResult | null) => {
      lease.inFlight = lease.inFlight.filter((r) => r !== reservation);
      // A refusal, a limiter that failed open, or one that failed reserves nothing.
      if (!result || !result.success || result.failedOpen) return;
      // Tokens of a lease that lapsed meanwhile are not spent any more: the new ones replace them.
      const unspent = lease.until > now() ? lease.tokens : 0;
      Object.assign(lease, {
        tokens: unspent + size - reservation.claimed,
        until: now() + LEASE_MS,
        size: Math.max(size, lease.until > now() ? lease.size : 0),
        remaining: result.remaining,
        reset: result.reset,
      });
    };
    reservation.answer.then(settle, () => settle(null));
    return reservation;
  }

  return {
    ...inner,
    async limit(window, identifier, max) {
      const lease = leaseOf(keyOf(window, identifier, max));
      if (lease.tokens > 0 && lease.until > now()) {
        lease.tokens -= 1;
        return {
          success: true,
          limit: max,
          remaining: Math.max(0, lease.remaining + lease.tokens),
          reset: lease.reset,
        };
      }
      const open = lease.inFlight.find((r) => r.claimed < r.size);
      if (open) open.claimed += 1;
      const reservation = open ?? reserve(lease, window, identifier, max);
      // The refusal (or the failure to ask) answers every request the reservation stood for.
      return reservation.answer;
    },
    async reset(identifier) {
      for (const key of [...leases.keys()]) if (key.endsWith(`|${identifier}`)) leases.delete(key);
      await inner.reset(identifier);
    },
  };
}

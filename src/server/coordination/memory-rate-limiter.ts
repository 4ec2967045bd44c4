import { coordinationSettings } from "./settings";
import type { LimitWindow, RateLimiter } from "./types";
import { WINDOW_MS } from "./windows";

interface Counts {
  window: number;
  current: number;
  previous: number;
  /** The window still counts until then (two windows after it began: the next one weighs it). */
  expiresAt: number;
  /** It refused its last request: it is never dropped to make room before it expires. */
  refusing: boolean;
}

export interface MemoryRateLimiterOptions {
  now?: () => number;
  /**
   * Identifiers that name a client address (anyone on the internet can bring new ones): at most
   * `maxAddresses` of them are kept. The others (API keys, accounts) are as many as the database has,
   * and are kept until their windows expire.
   */
  isAddress?: (identifier: string) => boolean;
  /** Default 100,000. */
  maxAddresses?: number;
}

/** Every new address shares this one while the table is full of live, refusing windows. */
const OVERFLOW = "\u0000overflow";

/**
 * In-process sliding-window counter, the same algorithm @upstash/ratelimit runs in Redis: the previous
 * fixed window counts in proportion to how much of it still overlaps the sliding window. Single
 * instance only.
 *
 * Bounded without forgetting what refuses. Address windows beyond the bound make room by dropping
 * expired windows, then the least recently admitted of those not refusing; a refusing window stays
 * until it expires, so churning through new addresses resets nobody's spent window. When the table is
 * full of refusing windows, new addresses are counted together in one window (coarser, and soon
 * refusing) rather than displacing anyone. Key and account windows are never dropped before expiry:
 * an attacker's address traffic cannot reset a key's day.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter & {
  /** Windows held (for tests and metrics). */
  size(): { addresses: number; others: number };
} {
  const now = options.now ?? Date.now;
  const isAddress = options.isAddress ?? (() => false);
  const maxAddresses = options.maxAddresses ?? coordinationSettings.settings.OPTSTUFF_ADDRESS_WINDOWS_MAX.default;
  const addresses = new Map<string, Counts>();
  const others = new Map<string, Counts>();
  let nextSweep = 0;

  function tableOf(identifier: string) {
    return isAddress(identifier) ? addresses : others;
  }

  function counts(table: Map<string, Counts>, key: string, window: number, size: number): Counts {
    const expiresAt = (window + 2) * size;
    const entry = table.get(key);
    if (!entry || entry.window < window - 1) return { window, current: 0, previous: 0, expiresAt, refusing: false };
    if (entry.window === window - 1)
      return { window, current: 0, previous: entry.current, expiresAt, refusing: entry.refusing };
    return entry;
  }

  function dropExpired(table: Map<string, Counts>, at: number): void {
    for (const [key, entry] of table) if (entry.expiresAt <= at) table.delete(key);
  }

  /** Room for one more address: expired first, then the least recently admitted that do not refuse. */
  function makeRoom(at: number): boolean {
    if (addresses.size < maxAddresses) return true;
    dropExpired(addresses, at);
    // Down to 90 %, so that a full table is not swept again for every new address.
    const target = Math.floor(maxAddresses * 0.9);
    for (const [key, entry] of addresses) {
      if (addresses.size <= target) break;
      if (!entry.refusing) addresses.delete(key);
    }
    return addresses.size < maxAddresses;
  }

  return {
    async limit(window: LimitWindow, identifier: string, max: number, tokens = 1) {
      const size = WINDOW_MS[window];
      const at = now();
      if (at >= nextSweep) {
        dropExpired(others, at);
        nextSweep = at + WINDOW_MS.minute;
      }
      const index = Math.floor(at / size);
      let table = tableOf(identifier);
      let key = `${window}:${identifier}`;
      // One shared window per length, kept beside the keys': the address table stays within its bound.
      if (table === addresses && !addresses.has(key) && !makeRoom(at)) [table, key] = [others, `${window}:${OVERFLOW}`];
      const entry = counts(table, key, index, size);
      const overlap = 1 - (at % size) / size;
      const weightedPrevious = Math.floor(entry.previous * overlap);
      const reset = (index + 1) * size;
      table.delete(key); // re-insert: Map order doubles as recency for the bound above
      if (weightedPrevious + entry.current >= max) {
        entry.refusing = true;
        table.set(key, entry);
        return { success: false, limit: max, remaining: 0, reset };
      }
      entry.current += tokens;
      const remaining = max - weightedPrevious - entry.current;
      entry.refusing = remaining < 0;
      table.set(key, entry);
      return { success: remaining >= 0, limit: max, remaining: Math.max(0, remaining), reset };
    },
    async refund(window, identifier) {
      const entry = tableOf(identifier).get(`${window}:${identifier}`);
      if (entry && entry.window === Math.floor(now() / WINDOW_MS[window]) && entry.current > 0) entry.current -= 1;
    },
    async used(window, identifier) {
      const size = WINDOW_MS[window];
      const at = now();
      const key = `${window}:${identifier}`;
      const table = tableOf(identifier);
      if (!table.has(key)) return 0;
      const entry = counts(table, key, Math.floor(at / size), size);
      return Math.floor(entry.previous * (1 - (at % size) / size)) + entry.current;
    },
    async reset(identifier) {
      for (const window of Object.keys(WINDOW_MS)) tableOf(identifier).delete(`${window}:${identifier}`);
    },
    async warmUp() {},
    size: () => ({ addresses: addresses.size, others: others.size }),
  };
}

import type { LimitWindow, RateLimiter } from "./types";
import { WINDOW_MS } from "./windows";

interface Counts {
  window: number;
  current: number;
  previous: number;
}

/**
 * In-process sliding-window counter, the same algorithm @upstash/ratelimit runs in Redis: the previous
 * fixed window counts in proportion to how much of it still overlaps the sliding window. Single
 * instance only; bounded by dropping identifiers idle for two windows.
 */
export function createMemoryRateLimiter(now: () => number = Date.now, maxIdentifiers = 100_000): RateLimiter {
  const state = new Map<string, Counts>();

  function counts(key: string, window: number): Counts {
    const entry = state.get(key);
    if (!entry || entry.window < window - 1) return { window, current: 0, previous: 0 };
    if (entry.window === window - 1) return { window, current: 0, previous: entry.current };
    return entry;
  }

  return {
    async limit(window: LimitWindow, identifier: string, max: number) {
      const size = WINDOW_MS[window];
      const at = now();
      const index = Math.floor(at / size);
      const key = `${window}:${identifier}`;
      const entry = counts(key, index);
      const overlap = 1 - (at % size) / size;
      const weightedPrevious = Math.floor(entry.previous * overlap);
      const reset = (index + 1) * size;
      if (weightedPrevious + entry.current >= max) {
        state.set(key, entry);
        return { success: false, limit: max, remaining: 0, reset };
      }
      entry.current += 1;
      state.delete(key); // re-insert: Map order doubles as recency for the bound below
      state.set(key, entry);
      if (state.size > maxIdentifiers) state.delete(state.keys().next().value!);
      return { success: true, limit: max, remaining: Math.max(0, max - weightedPrevious - entry.current), reset };
    },
    async refund(window, identifier) {
      const entry = state.get(`${window}:${identifier}`);
      if (entry && entry.window === Math.floor(now() / WINDOW_MS[window]) && entry.current > 0) entry.current -= 1;
    },
    async reset(identifier) {
      for (const window of Object.keys(WINDOW_MS)) state.delete(`${window}:${identifier}`);
    },
    async warmUp() {},
  };
}

import type { LimitResult, LimitWindow, MemoRateLimiter, RateLimiter } from "./types";

/** How long a refusal is trusted from memory: short, so a limit raised or reset elsewhere applies soon. */
const HOLD_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * Remembers refusals per (window, identifier, maximum) until the window frees capacity or HOLD_MS
 * passes, whichever is first. A changed maximum is another entry, so raising a key's limit applies at
 * once; resetting an identifier here forgets it (another process's reset applies within HOLD_MS).
 */
export function withRefusalMemo(inner: RateLimiter, now: () => number = Date.now): MemoRateLimiter {
  const refusals = new Map<string, { result: LimitResult; until: number }>();
  const keyOf = (window: LimitWindow, identifier: string, max: number) => `${window}|${max}|${identifier}`;

  return {
    ...inner,
    knownRefusal(window, identifier, max) {
      const key = keyOf(window, identifier, max);
      const known = refusals.get(key);
      if (!known) return null;
      if (known.until > now()) return known.result;
      refusals.delete(key);
      return null;
    },
    async limit(window, identifier, max, tokens) {
      const result = await inner.limit(window, identifier, max, tokens);
      if (!result.success) {
        if (refusals.size >= MAX_ENTRIES) refusals.delete(refusals.keys().next().value!);
        refusals.set(keyOf(window, identifier, max), { result, until: Math.min(result.reset, now() + HOLD_MS) });
      }
      return result;
    },
    async reset(identifier) {
      for (const key of [...refusals.keys()]) if (key.endsWith(`|${identifier}`)) refusals.delete(key);
      await inner.reset(identifier);
    },
  };
}

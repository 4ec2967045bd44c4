/**
 * The activity keys this instance has asked Redis about (touch-activity.ts) and until when: within
 * that window the answer cannot change (the key's SET NX holds as long), so a hit asks nothing. Bounded:
 * past `maxEntries` the oldest entry goes first, and is only asked again.
 */
export interface ActivityMemo {
  /** True when `key` was asked within its window; otherwise remembers it as asked now, and is false. */
  askedRecently(key: string, atMs: number): boolean;
}

export function createActivityMemo(windowMs: number, maxEntries = 10_000): ActivityMemo {
  const asked = new Map<string, number>();
  return {
    askedRecently(key, atMs) {
      const until = asked.get(key);
      if (until !== undefined && until > atMs) return true;
      asked.delete(key);
      if (asked.size >= maxEntries) asked.delete(asked.keys().next().value!);
      asked.set(key, atMs + windowMs);
      return false;
    },
  };
}

import type { TransformResult } from "./types";

export interface ResultCacheOptions {
  /** Total bytes of stored bodies. Entries larger than a quarter of this are not stored. */
  maxBytes: number;
}

export interface ResultCache {
  get(key: string): TransformResult | undefined;
  set(key: string, value: TransformResult): void;
  stats(): { entries: number; bytes: number; hits: number; misses: number };
}

/**
 * An in-process LRU of transformed images, bounded by body bytes (not entry count: a placeholder and a
 * 4K AVIF differ by a factor of thousands). A Map iterates in insertion order, so re-inserting on
 * every hit keeps the least recently used entry first.
 */
export function createResultCache(options: ResultCacheOptions): ResultCache {
  const maxBytes = Math.max(0, options.maxBytes);
  // One huge entry would flush everything else for a single hit; leave those to the CDN.
  const maxEntryBytes = maxBytes / 4;
  const entries = new Map<string, TransformResult>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  function remove(key: string): void {
    const existing = entries.get(key);
    if (!existing) return;
    entries.delete(key);
    bytes -= existing.body.length;
  }

  return {
    get(key) {
      const value = entries.get(key);
      if (!value) {
        misses++;
        return undefined;
      }
      hits++;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      remove(key);
      if (value.body.length > maxEntryBytes) return;
      entries.set(key, value);
      bytes += value.body.length;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        remove(oldest);
      }
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
  };
}

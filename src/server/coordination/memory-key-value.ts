import type { KeyValue } from "./types";

interface Entry {
  value: string | Map<string, number>;
  expiresAt: number;
}

/**
 * In-process KeyValue for the embedded default. Same semantics as the Redis commands it stands for
 * (TTL on every key, NX, atomic hash increments); valid for one process only.
 */
export function createMemoryKeyValue(now: () => number = Date.now): KeyValue & { size(): number } {
  const entries = new Map<string, Entry>();

  function live(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  return {
    kind: "memory",
    async get(key) {
      const value = live(key)?.value;
      if (value instanceof Map) throw new Error("WRONGTYPE Operation against a key holding the wrong kind of value");
      return value ?? null;
    },
    async set(key, value, { ttlSeconds, onlyIfAbsent }) {
      if (onlyIfAbsent && live(key)) return false;
      entries.set(key, { value, expiresAt: now() + ttlSeconds * 1000 });
      return true;
    },
    async del(keys) {
      for (const key of keys) entries.delete(key);
    },
    async incrementHash(key, increments, ttlSeconds) {
      const existing = live(key)?.value;
      const hash = existing instanceof Map ? existing : new Map<string, number>();
      for (const [field, by] of Object.entries(increments)) hash.set(field, (hash.get(field) ?? 0) + by);
      entries.set(key, { value: hash, expiresAt: now() + ttlSeconds * 1000 });
    },
    async getHash(key) {
      const value = live(key)?.value;
      return value instanceof Map ? Object.fromEntries(value) : {};
    },
    async ttl(key) {
      const entry = live(key);
      return entry ? Math.ceil((entry.expiresAt - now()) / 1000) : -2;
    },
    async ping() {},
    size: () => entries.size,
  };
}

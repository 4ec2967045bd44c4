import { CLAIM_FIELD, CLAIMED_FIELD, countersFrom } from "./redis-scripts";
import type { HashClaim, KeyValue } from "./types";

interface Entry {
  /** Hashes hold counters, and a claim id while a claim is pending. */
  value: string | Map<string, number | string>;
  expiresAt: number;
}

/**
 * In-process KeyValue for the embedded default. Same semantics as the Redis commands it stands for
 * (TTL on every key, NX, atomic hash increments); valid for one process only. Like Redis, it also drops
 * expired keys nobody reads again (a minute's throttle or failure count per project, creatable by
 * anyone with a public key): every write sweeps them once a minute at most.
 */
export function createMemoryKeyValue(now: () => number = Date.now): KeyValue & { size(): number } {
  const entries = new Map<string, Entry>();
  let nextSweep = 0;

  function write(key: string, entry: Entry): void {
    const at = now();
    if (at >= nextSweep) {
      for (const [old, { expiresAt }] of entries) if (expiresAt <= at) entries.delete(old);
      nextSweep = at + 60_000;
    }
    entries.set(key, entry);
  }

  function live(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  function stringAt(key: string): string | null {
    const value = live(key)?.value;
    if (value instanceof Map) throw new Error("WRONGTYPE Operation against a key holding the wrong kind of value");
    return value ?? null;
  }

  function hashOf(key: string): Map<string, number | string> | undefined {
    const value = live(key)?.value;
    if (typeof value === "string") throw new Error("WRONGTYPE Operation against a key holding the wrong kind of value");
    return value;
  }

  /** The same layout as the Redis script: the claim's counters as one JSON field beside its id. */
  function claimOne(key: string, claim: string): HashClaim | null {
    const hash = hashOf(key);
    if (!hash) return null;
    if (!hash.has(CLAIM_FIELD)) {
      const flat = [...hash].flat();
      hash.clear();
      hash.set(CLAIM_FIELD, claim);
      hash.set(CLAIMED_FIELD, JSON.stringify(flat.map(String)));
    }
    return {
      claim: String(hash.get(CLAIM_FIELD)),
      counters: countersFrom(JSON.parse(String(hash.get(CLAIMED_FIELD))) as string[]),
    };
  }

  function releaseOne(key: string, claim: string): void {
    const hash = hashOf(key);
    if (hash?.get(CLAIM_FIELD) !== claim) return;
    hash.delete(CLAIM_FIELD);
    hash.delete(CLAIMED_FIELD);
    if (hash.size === 0) entries.delete(key);
  }

  return {
    get: async (key) => stringAt(key),
    async set(key, value, { ttlSeconds, onlyIfAbsent }) {
      if (onlyIfAbsent && live(key)) return false;
      write(key, { value, expiresAt: now() + ttlSeconds * 1000 });
      return true;
    },
    async del(keys) {
      for (const key of keys) entries.delete(key);
    },
    async incrementHash(key, increments, ttlSeconds) {
      const existing = live(key)?.value;
      const hash = existing instanceof Map ? existing : new Map<string, number | string>();
      for (const [field, by] of Object.entries(increments)) hash.set(field, Number(hash.get(field) ?? 0) + by);
      write(key, { value: hash, expiresAt: now() + ttlSeconds * 1000 });
    },
    async getHash(key) {
      return Object.fromEntries([...(hashOf(key) ?? [])].map(([field, value]) => [field, Number(value)]));
    },
    async ttl(key) {
      const entry = live(key);
      return entry ? Math.ceil((entry.expiresAt - now()) / 1000) : -2;
    },
    async ping() {},
    async increment(key, ttlSeconds, by = 1) {
      const current = stringAt(key);
      const next = Number(current ?? 0) + by;
      const expiresAt = current === null ? now() + ttlSeconds * 1000 : live(key)!.expiresAt;
      write(key, { value: String(next), expiresAt });
      return next;
    },
    async scan(prefix) {
      // One page holds everything: the map is in this process.
      return { cursor: "0", keys: [...entries.keys()].filter((key) => key.startsWith(prefix) && live(key)) };
    },
    async deleteIfEquals(key, value) {
      if (stringAt(key) !== value) return false;
      entries.delete(key);
      return true;
    },
    async expireIfEquals(key, value, ttlSeconds) {
      if (stringAt(key) !== value) return false;
      live(key)!.expiresAt = now() + ttlSeconds * 1000;
      return true;
    },
    claimHashes: async (keys, claim) => keys.map((key) => claimOne(key, claim)),
    async releaseClaims(claims) {
      for (const { key, claim } of claims) releaseOne(key, claim);
    },
    size: () => entries.size,
  };
}

import { createSingleFlight } from "@/server/single-flight";
import type { ConfigStore } from "./config-store";
import type { ApiKeyConfig, ProjectConfig } from "./model";

export interface MemoryTierOptions {
  /** How long an entry (found or not) is trusted. Bounds how late another process's change is seen. */
  ttlMs: number;
  /** Entries kept per namespace; the oldest are dropped first. */
  maxEntries: number;
  now?: () => number;
  /** Each lookup's result, for the cache-hit metrics. */
  onLookup?: (result: "hit" | "miss" | "shared") => void;
}

export interface CachedConfigStore extends ConfigStore {
  invalidateApiKey(publicKey: string): void;
  invalidateProject(projectId: string): void;
}

/**
 * The in-process L1 in front of any ConfigStore: hot keys cost no I/O, absent keys are remembered too
 * (so probing with random keys does not reach the store on every request), and concurrent misses for
 * one key share a single read. TTLs carry ±10 % jitter so entries loaded together do not expire together.
 */
export function createMemoryTier(inner: ConfigStore, options: MemoryTierOptions): CachedConfigStore {
  const keys = createTier<ApiKeyConfig>(options, (publicKey) => inner.getApiKey(publicKey));
  const projects = createTier<ProjectConfig>(options, (projectId) => inner.getProject(projectId));
  return {
    getApiKey: keys.get,
    getProject: projects.get,
    invalidateApiKey: keys.invalidate,
    invalidateProject: projects.invalidate,
  };
}

interface Entry<T> {
  value: T | null;
  expiresAt: number;
}

function createTier<T>(options: MemoryTierOptions, load: (id: string) => Promise<T | null>) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry<T>>();
  const inflight = createSingleFlight<T | null>();
  // Bumped on invalidation so a read that started before it cannot store its stale result after it.
  const generations = new Map<string, number>();

  function store(id: string, value: T | null): void {
    entries.delete(id);
    if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
    const jitter = 0.9 + Math.random() * 0.2;
    entries.set(id, { value, expiresAt: now() + options.ttlMs * jitter });
  }

  return {
    async get(id: string): Promise<T | null> {
      const entry = entries.get(id);
      if (entry && entry.expiresAt > now()) {
        options.onLookup?.("hit");
        return entry.value;
      }
      options.onLookup?.(inflight.running(id) ? "shared" : "miss");
      return inflight.run(id, async () => {
        const generation = generations.get(id) ?? 0;
        const value = await load(id);
        if ((generations.get(id) ?? 0) === generation) store(id, value);
        return value;
      });
    },
    invalidate(id: string): void {
      entries.delete(id);
      inflight.forget(id);
      generations.set(id, (generations.get(id) ?? 0) + 1);
    },
  };
}

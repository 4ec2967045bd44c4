import { describe, expect, it } from "vitest";
import {
  createMemoryTier,
  NO_PURGES,
  type ApiKeyConfig,
  type ConfigStore,
  type ProjectConfig,
} from "@/server/config-cache";

function countingStore(keys: Record<string, ApiKeyConfig>, delayMs = 0) {
  const reads: string[] = [];
  const store: ConfigStore = {
    async getApiKey(publicKey) {
      reads.push(publicKey);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      return keys[publicKey] ?? null;
    },
    async getProject(projectId): Promise<ProjectConfig | null> {
      reads.push(projectId);
      return {
        id: projectId,
        teamId: "t",
        account: "account:u",
        slug: "s",
        allowedSourceHosts: [],
        allowedRefererHosts: [],
        cache: NO_PURGES,
        presets: {},
        presetsOnly: false,
        defaultQuality: null,
        watermark: null,
        fallback: null,
        buckets: {},
      };
    },
  };
  return { store, reads };
}

const key = (publicKey: string, revokedAt: Date | null = null): ApiKeyConfig => ({
  id: "k",
  projectId: "p",
  publicKey,
  encryptedSecret: "v1.x.y.z.w",
  expiresAt: null,
  revokedAt,
  rateLimitPerMinute: 60,
  rateLimitPerDay: 10_000,
  policy: null,
  capReached: null,
});

describe("in-process config tier", () => {
  it("serves repeated reads from memory until the TTL passes", async () => {
    let clock = 0;
    const { store, reads } = countingStore({ pk_a: key("pk_a") });
    const tier = createMemoryTier(store, { ttlMs: 1000, maxEntries: 10, now: () => clock });
    await tier.getApiKey("pk_a");
    await tier.getApiKey("pk_a");
    expect(reads).toEqual(["pk_a"]);
    clock = 1200; // past the TTL even with +10 % jitter
    await tier.getApiKey("pk_a");
    expect(reads).toEqual(["pk_a", "pk_a"]);
  });

  it("remembers absent keys too, so probing does not reach the store each time", async () => {
    const { store, reads } = countingStore({});
    const tier = createMemoryTier(store, { ttlMs: 1000, maxEntries: 10 });
    expect(await tier.getApiKey("pk_missing")).toBeNull();
    expect(await tier.getApiKey("pk_missing")).toBeNull();
    expect(reads).toHaveLength(1);
  });

  it("shares one read among concurrent misses", async () => {
    const { store, reads } = countingStore({ pk_a: key("pk_a") }, 20);
    const tier = createMemoryTier(store, { ttlMs: 1000, maxEntries: 10 });
    const results = await Promise.all(Array.from({ length: 10 }, () => tier.getApiKey("pk_a")));
    expect(results.every((r) => r?.publicKey === "pk_a")).toBe(true);
    expect(reads).toHaveLength(1);
  });

  it("sees a change at once after invalidation, even if a read was in flight", async () => {
    const keys = { pk_a: key("pk_a") };
    const { store, reads } = countingStore(keys, 20);
    const tier = createMemoryTier(store, { ttlMs: 60_000, maxEntries: 10 });
    const stale = tier.getApiKey("pk_a");
    keys.pk_a = key("pk_a", new Date());
    tier.invalidateApiKey("pk_a");
    await stale;
    expect((await tier.getApiKey("pk_a"))?.revokedAt).toBeInstanceOf(Date);
    expect(reads).toHaveLength(2);
  });

  it("keeps at most maxEntries, dropping the oldest", async () => {
    const { store, reads } = countingStore({});
    const tier = createMemoryTier(store, { ttlMs: 60_000, maxEntries: 2 });
    for (const id of ["a", "b", "c"]) await tier.getProject(id);
    await tier.getProject("c");
    await tier.getProject("a");
    expect(reads).toEqual(["a", "b", "c", "a"]);
  });

  it("does not cache at all with a zero TTL", async () => {
    const { store, reads } = countingStore({ pk_a: key("pk_a") });
    const tier = createMemoryTier(store, { ttlMs: 0, maxEntries: 10 });
    await tier.getApiKey("pk_a");
    await tier.getApiKey("pk_a");
    expect(reads).toHaveLength(2);
  });
});

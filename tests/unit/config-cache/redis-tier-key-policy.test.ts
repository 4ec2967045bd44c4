import { describe, expect, it } from "vitest";
import { createRedisTier, type ApiKeyConfig, type ConfigStore } from "@/server/config-cache";
import { createCounters } from "@/server/coordination/counters";
import { redisKeys } from "@/server/coordination/keys";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";

const key: ApiKeyConfig = {
  id: "k",
  projectId: "p",
  publicKey: "pk_policyPolicyPolicyPol",
  encryptedSecret: "v1.x.y.z",
  expiresAt: null,
  revokedAt: null,
  rateLimitPerMinute: 60,
  rateLimitPerDay: 10_000,
  policy: { operations: ["pr"], presets: ["hero"], maxExpirySeconds: 3600, referers: ["partner.example"] },
  capReached: { cap: "transformsPerMonth", limit: 500, untilMs: Date.UTC(2027, 0, 1) },
};

function tierOver(inner: ApiKeyConfig | null) {
  const kv = createMemoryKeyValue();
  let reads = 0;
  const store: ConfigStore = {
    getApiKey: async () => {
      reads++;
      return inner;
    },
    getProject: async () => null,
  };
  const tier = createRedisTier(store, { kv, logSampled: () => {}, counters: createCounters() });
  return { kv, tier, reads: () => reads };
}

describe("the Redis tier's key entries", () => {
  it("keep a key's policy through the shared tier, as the database store gave it", async () => {
    const { kv, tier, reads } = tierOver(key);
    expect(await tier.getApiKey(key.publicKey)).toEqual(key);
    // Written back without waiting: once it is there, the next read is Redis's.
    await expect.poll(() => kv.get(redisKeys.apiKeyConfig(key.publicKey))).not.toBeNull();
    expect(await tier.getApiKey(key.publicKey)).toEqual(key);
    expect(reads()).toBe(1);
  });

  it("read an entry written by code without key policies from the database, never as a key without one", async () => {
    // A rolling deploy: an instance still on the old code refilled the entry after the policy was saved.
    const { kv, tier, reads } = tierOver(key);
    const { policy: _, ...older } = key;
    await kv.set(redisKeys.apiKeyConfig(key.publicKey), JSON.stringify(older), { ttlSeconds: 60 });
    expect(await tier.getApiKey(key.publicKey)).toEqual(key);
    expect(await tier.getApiKey(key.publicKey)).toEqual(key);
    expect(reads()).toBe(2);
  });

  it("read an entry written by code without spend caps from the database, never as a key below its cap", async () => {
    const { kv, tier, reads } = tierOver(key);
    const { capReached: _, ...older } = key;
    await kv.set(redisKeys.apiKeyConfig(key.publicKey), JSON.stringify(older), { ttlSeconds: 60 });
    expect(await tier.getApiKey(key.publicKey)).toEqual(key);
    expect(reads()).toBe(1);
  });

  it("write a key without a policy as policy: null, which reads back from Redis alone", async () => {
    const open = { ...key, policy: null };
    const { kv, tier, reads } = tierOver(open);
    await tier.getApiKey(key.publicKey);
    await expect.poll(() => kv.get(redisKeys.apiKeyConfig(key.publicKey))).toContain('"policy":null');
    expect(await tier.getApiKey(key.publicKey)).toEqual(open);
    expect(reads()).toBe(1);
  });
});

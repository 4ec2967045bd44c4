import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, NO_REDIS, type TestApp } from "../../support/app";

/**
 * OPTSTUFF_CONFIG_CACHE_ENTRIES bounds the in-process configuration cache: past it the oldest entry
 * goes, so its next lookup reads the tier behind (the database here) again. Absent keys are kept too.
 */
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function lookUps(entries: string): Promise<{ first: string; last: string }> {
  const app = await createTestApp({
    env: { ...NO_REDIS, OPTSTUFF_CONFIG_CACHE_TTL_MS: "60000", OPTSTUFF_CONFIG_CACHE_ENTRIES: entries },
  });
  apps.push(app);
  const { config } = app.services;
  const counters = app.services.counters;
  const keys = Array.from({ length: 101 }, (_, i) => `pk_absent_${i}`);
  for (const key of keys) await config.getApiKey(key);
  const again = async (key: string) => {
    const misses = counters.get("config_l1_miss");
    await config.getApiKey(key);
    return counters.get("config_l1_miss") > misses ? "read again" : "kept";
  };
  // The newest first: looking up the first key again would put it back before the newest is asked.
  const last = await again(keys[100]!);
  return { first: await again(keys[0]!), last };
}

describe("the in-process configuration cache's size", () => {
  it("drops the oldest of 101 keys at 100 entries, and keeps all of them at 1000", async () => {
    expect(await lookUps("100")).toEqual({ first: "read again", last: "kept" });
    expect(await lookUps("1000")).toEqual({ first: "kept", last: "kept" });
  });

  it("refuses a size under 100, naming the setting", async () => {
    await expect(createTestApp({ env: { OPTSTUFF_CONFIG_CACHE_ENTRIES: "10" } })).rejects.toThrow(
      /OPTSTUFF_CONFIG_CACHE_ENTRIES/,
    );
  });
});

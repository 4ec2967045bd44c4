import { describe, expect, it } from "vitest";
import { createCounters } from "@/server/coordination/counters";
import { redisKeys } from "@/server/coordination/keys";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import type { KeyValue } from "@/server/coordination/types";
import { createActivityMemo } from "@/server/usage/activity-memo";
import { createUsageWindow } from "@/server/usage/usage-window";

const at = new Date("2026-11-29T10:00:30Z");
const increment = (apiKeyId: string, bytes: number, when = at, transforms: 0 | 1 = 0, requests: 0 | 1 = 1) => ({
  projectId: "p",
  apiKeyId,
  requests,
  bytes,
  transforms,
  at: when,
});

/** A key-value store that counts its hash writes, and can be made to fail them. */
function countingStore() {
  const inner = createMemoryKeyValue();
  const state = { writes: 0, failing: false };
  const kv: KeyValue = {
    ...inner,
    async incrementHash(key, fields, ttl) {
      state.writes += 1;
      if (state.failing) throw new Error("redis unreachable");
      await inner.incrementHash(key, fields, ttl);
    },
  };
  return { kv, state };
}

const quiet = () => {};

describe("usage increments, one write per window", () => {
  it("adds every request of a window to its minute's bucket in one write, exactly", async () => {
    const { kv, state } = countingStore();
    const window = createUsageWindow({ kv, counters: createCounters(), logSampled: quiet }, 20);
    await Promise.all([
      window.add(increment("k1", 100)),
      window.add(increment("k1", 50)),
      window.add(increment("k2", 7)),
      window.add(increment("k1", 0)),
    ]);
    expect(state.writes).toBe(1);
    expect(await kv.getHash(redisKeys.usageBucket(at))).toEqual({
      "p|k1|req": 3,
      "p|k1|bytes": 150,
      "p|k2|req": 1,
      "p|k2|bytes": 7,
    });
  });

  it("counts a key's transforms beside its requests, and an encode finished after its answer as a transform alone", async () => {
    const { kv } = countingStore();
    const window = createUsageWindow({ kv, counters: createCounters(), logSampled: quiet }, 20);
    await Promise.all([
      window.add(increment("k1", 100, at, 1)),
      window.add(increment("k1", 40)),
      window.add(increment("k1", 0, at, 1, 0)),
      window.add(increment("k2", 0, at, 1, 0)),
    ]);
    expect(await kv.getHash(redisKeys.usageBucket(at))).toEqual({
      "p|k1|req": 2,
      "p|k1|bytes": 140,
      "p|k1|tf": 2,
      "p|k2|tf": 1,
    });
  });

  it("keeps each minute's requests in that minute's bucket, one write per bucket", async () => {
    const { kv, state } = countingStore();
    const window = createUsageWindow({ kv, counters: createCounters(), logSampled: quiet }, 20);
    const next = new Date(at.getTime() + 60_000);
    await Promise.all([window.add(increment("k1", 1)), window.add(increment("k1", 2, next))]);
    expect(state.writes).toBe(2);
    expect(await kv.getHash(redisKeys.usageBucket(at))).toEqual({ "p|k1|req": 1, "p|k1|bytes": 1 });
    expect(await kv.getHash(redisKeys.usageBucket(next))).toEqual({ "p|k1|req": 1, "p|k1|bytes": 2 });
  });

  it("counts a failed window's requests as lost, resolves anyway, and starts the next window afresh", async () => {
    const { kv, state } = countingStore();
    const counters = createCounters();
    const logged: string[] = [];
    const window = createUsageWindow({ kv, counters, logSampled: (_, __, message) => logged.push(message) }, 20);
    state.failing = true;
    await Promise.all([window.add(increment("k1", 1)), window.add(increment("k1", 1))]);
    expect(counters.get("usage_increment_lost")).toBe(2);
    expect(logged).toEqual(["usage increments lost"]);
    state.failing = false;
    await window.add(increment("k1", 5));
    expect(await kv.getHash(redisKeys.usageBucket(at))).toEqual({ "p|k1|req": 1, "p|k1|bytes": 5 });
  });

  it("writes what is gathered when drained, without waiting for the window", async () => {
    const { kv } = countingStore();
    const window = createUsageWindow({ kv, counters: createCounters(), logSampled: quiet }, 60_000);
    const written = window.add(increment("k1", 3));
    await window.drain();
    await written;
    expect(await kv.getHash(redisKeys.usageBucket(at))).toEqual({ "p|k1|req": 1, "p|k1|bytes": 3 });
    await window.drain(); // nothing gathered: nothing written, nothing thrown
  });
});

describe("activity asked once per window", () => {
  it("answers recently-asked within the window, asks again after it", () => {
    const memo = createActivityMemo(30_000);
    expect(memo.askedRecently("k", 0)).toBe(false);
    expect(memo.askedRecently("k", 29_999)).toBe(true);
    expect(memo.askedRecently("other", 1)).toBe(false);
    expect(memo.askedRecently("k", 30_000)).toBe(false);
    expect(memo.askedRecently("k", 59_999)).toBe(true);
  });

  it("stays within its size, forgetting the oldest first", () => {
    const memo = createActivityMemo(30_000, 2);
    memo.askedRecently("a", 0);
    memo.askedRecently("b", 0);
    memo.askedRecently("c", 0); // a goes
    expect(memo.askedRecently("b", 1)).toBe(true);
    expect(memo.askedRecently("c", 1)).toBe(true);
    expect(memo.askedRecently("a", 1)).toBe(false);
  });
});

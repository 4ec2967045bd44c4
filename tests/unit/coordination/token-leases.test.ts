import { describe, expect, it } from "vitest";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { withRefusalMemo } from "@/server/coordination/refusal-memo";
import { LEASE_MS, MAX_LEASE, withTokenLeases } from "@/server/coordination/token-leases";
import type { LimitWindow, MemoRateLimiter } from "@/server/coordination/types";

/**
 * The shared limiter stands in as the in-process one with a clock of its own, every call counted: what
 * a reservation saves is calls, and what it may cost is exactness, both measured here.
 */
function shared() {
  let at = Date.UTC(2026, 10, 29, 12, 0, 5);
  const now = () => at;
  const calls: number[] = [];
  const inner = withRefusalMemo(createMemoryRateLimiter({ now }), now);
  const counted: MemoRateLimiter = {
    ...inner,
    limit(window: LimitWindow, identifier: string, max: number, tokens = 1) {
      calls.push(tokens);
      return inner.limit(window, identifier, max, tokens);
    },
  };
  return {
    now,
    calls,
    inner,
    advance: (ms: number) => {
      at += ms;
    },
    instance: () => withTokenLeases(counted, now),
  };
}

const admitted = (results: Array<{ success: boolean }>) => results.filter((r) => r.success).length;

describe("tokens reserved a few at a time", () => {
  it("answers a lone request with one token, as before: nothing reserved that nobody spends", async () => {
    const world = shared();
    const limiter = world.instance();
    expect((await limiter.limit("minute", "a", 1200)).success).toBe(true);
    expect(world.calls).toEqual([1]);
    expect(await world.inner.used("minute", "a", 1200)).toBe(1);
  });

  it("asks the shared limiter a few times for a burst, and admits every request of it", async () => {
    const world = shared();
    const limiter = world.instance();
    const burst = await Promise.all(Array.from({ length: 64 }, () => limiter.limit("minute", "a", 1200)));
    expect(admitted(burst)).toBe(64);
    expect(world.calls.length).toBeLessThanOrEqual(8);
    const reserved = world.calls.reduce((a, b) => a + b, 0);
    expect(await world.inner.used("minute", "a", 1200)).toBe(reserved);
    expect(reserved - 64).toBeLessThan(MAX_LEASE);
    // One at a time, each spent before the lease lapses: 1, 2, 4, 8 and on.
    const sequential = shared();
    const alone = sequential.instance();
    for (let i = 0; i < 15; i++) expect((await alone.limit("minute", "b", 1200)).success).toBe(true);
    expect(sequential.calls).toEqual([1, 2, 4, 8]);
  });

  it("is exact at the limit on one instance: never reserves past half of what is left", async () => {
    const world = shared();
    const limiter = world.instance();
    const results = [];
    for (let i = 0; i < 700; i++) results.push(await limiter.limit("minute", "k", 600));
    expect(admitted(results.slice(0, 600))).toBe(600);
    expect(admitted(results.slice(600))).toBe(0);
    expect(Math.max(...world.calls)).toBe(MAX_LEASE);
  });

  it("is never looser than the window with several instances, and stricter by at most a lease each", async () => {
    const world = shared();
    const instances = Array.from({ length: 4 }, () => world.instance());
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => instances[i % 4]!.limit("minute", "k", 640)),
    );
    expect(admitted(results)).toBeLessThanOrEqual(640);
    expect(admitted(results)).toBeGreaterThan(640 - 4 * MAX_LEASE);
    expect(world.calls.length).toBeLessThan(1000 / 4);
  });

  it("starts again at one token after a lease lapses, leaving its unspent tokens counted", async () => {
    const world = shared();
    const limiter = world.instance();
    for (let i = 0; i < 4; i++) await limiter.limit("minute", "a", 1200); // 1, then 2, then 4 reserved
    expect(world.calls).toEqual([1, 2, 4]);
    world.advance(LEASE_MS + 1);
    await limiter.limit("minute", "a", 1200);
    expect(world.calls).toEqual([1, 2, 4, 1]);
    expect(await world.inner.used("minute", "a", 1200)).toBe(8);
    // The three lapsed tokens are not spent after all: the next request reserves anew.
    await limiter.limit("minute", "a", 1200);
    expect(world.calls).toEqual([1, 2, 4, 1, 2]);
  });

  it("gives a refunded token back to the shared window, never into a lease that may lapse unspent", async () => {
    const world = shared();
    const limiter = world.instance();
    await limiter.limit("minute", "a", 1200);
    await limiter.limit("minute", "a", 1200); // a lease of two: one left
    expect(await world.inner.used("minute", "a", 1200)).toBe(3);
    await limiter.refund("minute", "a", 1200);
    expect(await world.inner.used("minute", "a", 1200)).toBe(2);
    await limiter.limit("minute", "a", 1200); // the lease's last token, from memory
    expect(world.calls).toEqual([1, 2]);
  });

  it("answers every request a refused reservation stood for with its refusal", async () => {
    const world = shared();
    const limiter = world.instance();
    await world.inner.limit("minute", "a", 640, 640);
    const results = await Promise.all(Array.from({ length: 10 }, () => limiter.limit("minute", "a", 640)));
    expect(admitted(results)).toBe(0);
    // Ten requests at once: reservations of 1, 2, 4 and 8, each refused for all it stood for.
    expect(world.calls).toEqual([1, 2, 4, 8]);
    expect(limiter.knownRefusal("minute", "a", 640)).toMatchObject({ success: false, limit: 640 });
    // A window too small to share (under 64 a minute) reserves one token a request, as without leases.
    await world.inner.limit("minute", "b", 5, 5);
    await Promise.all(Array.from({ length: 3 }, () => limiter.limit("minute", "b", 5)));
    expect(world.calls.slice(4)).toEqual([1, 1, 1]);
  });

  it("makes no request wait for another's call: a burst's reservations all leave at once", async () => {
    const world = shared();
    const answers: Array<() => void> = [];
    // The shared limiter answers only when the test says so: what is asked before any answer shows.
    const held: MemoRateLimiter = {
      ...world.inner,
      limit: (window, identifier, max, tokens) =>
        new Promise((resolve) => answers.push(() => resolve(world.inner.limit(window, identifier, max, tokens)))),
    };
    const limiter = withTokenLeases(held, world.now);
    const burst = Promise.all(Array.from({ length: 31 }, () => limiter.limit("minute", "a", 1200)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers).toHaveLength(5); // 1 + 2 + 4 + 8 + 16 = 31 tokens asked before any answer
    for (const answer of answers) answer();
    expect(admitted(await burst)).toBe(31);
    expect(await world.inner.used("minute", "a", 1200)).toBe(31);
  });

  it("fails every waiting request when the shared limiter fails, and asks again afterwards", async () => {
    const world = shared();
    let failing = true;
    const limiter = withTokenLeases(
      {
        ...world.inner,
        limit: async (window, identifier, max, tokens) => {
          if (failing) throw new Error("limiter down");
          return world.inner.limit(window, identifier, max, tokens);
        },
      },
      world.now,
    );
    const failed = await Promise.allSettled(Array.from({ length: 3 }, () => limiter.limit("minute", "a", 100)));
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    failing = false;
    expect((await limiter.limit("minute", "a", 100)).success).toBe(true);
  });

  it("forgets an identifier's leases when it is reset", async () => {
    const world = shared();
    const limiter = world.instance();
    for (let i = 0; i < 3; i++) await limiter.limit("minute", "a", 1200);
    await limiter.reset("a");
    await limiter.limit("minute", "a", 1200);
    expect(world.calls).toEqual([1, 2, 1]);
    expect(await world.inner.used("minute", "a", 1200)).toBe(1);
  });
});

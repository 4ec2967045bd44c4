import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { KeyValue, RateLimiter } from "@/server/coordination/types";
import { clearOfWindowEdge } from "../support/clock";
import { claimsContract } from "./claims";

export interface CoordinationUnderTest {
  kv: KeyValue;
  limiter: RateLimiter;
  /** Lets time pass for TTL cases: a fake clock in process, a real wait on Redis. */
  advance(ms: number): Promise<void>;
}

/**
 * One contract for every implementation of the coordination interfaces: the in-process ones run it in
 * the unit suite, real Redis (through the Upstash-compatible endpoint, and once on a cluster) in the
 * integration suite. A behaviour the embedded default relies on cannot drift from production.
 */
export function coordinationContract(name: string, setup: () => CoordinationUnderTest): void {
  const id = () => `contract-${randomUUID()}`;
  claimsContract(name, setup, id);

  describe(`coordination contract: ${name}`, () => {
    it("gets, sets, overwrites and deletes strings byte for byte", async () => {
      const { kv } = setup();
      const [a, b] = [id(), id()];
      expect(await kv.get(a)).toBeNull();
      for (const value of ["abcd", "ünïcode ✓", '{"json":true}', "", "__NOT_FOUND__"]) {
        expect(await kv.set(a, value, { ttlSeconds: 60 })).toBe(true);
        expect(await kv.get(a)).toBe(value);
      }
      await kv.set(b, "x", { ttlSeconds: 60 });
      await kv.del([a, b]);
      expect([await kv.get(a), await kv.get(b)]).toEqual([null, null]);
    });

    it("SET NX admits exactly one writer among concurrent ones", async () => {
      const { kv } = setup();
      const key = id();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => kv.set(key, "1", { ttlSeconds: 30, onlyIfAbsent: true })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await kv.ttl(key)).toBeGreaterThan(25);
    });

    it("expires keys after their TTL", async () => {
      const under = setup();
      const key = id();
      await under.kv.set(key, "v", { ttlSeconds: 1 });
      await under.advance(1_100);
      expect(await under.kv.get(key)).toBeNull();
      expect(await under.kv.ttl(key)).toBe(-2);
      expect(await under.kv.set(key, "again", { ttlSeconds: 1, onlyIfAbsent: true })).toBe(true);
    });

    it("adds hash increments exactly under concurrency and keeps a TTL", async () => {
      const { kv } = setup();
      const key = id();
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => kv.incrementHash(key, { "p|k|req": 1, "p|k|bytes": i }, 3600)),
      );
      expect(await kv.getHash(key)).toEqual({ "p|k|req": 50, "p|k|bytes": (49 * 50) / 2 });
      expect(await kv.ttl(key)).toBeGreaterThan(3500);
      expect(await kv.getHash(id())).toEqual({});
    });

    it("admits exactly the limit among 200 concurrent requests", async () => {
      const { limiter } = setup();
      await clearOfWindowEdge(60_000, 3_000);
      const identifier = id();
      const results = await Promise.all(Array.from({ length: 200 }, () => limiter.limit("minute", identifier, 50)));
      expect(results.filter((r) => r.success)).toHaveLength(50);
      const refused = results.find((r) => !r.success)!;
      expect(refused).toMatchObject({ limit: 50, remaining: 0 });
      expect(refused.reset).toBeGreaterThan(Date.now() - 1000);
    });

    it("takes several tokens at once while they fit, and refuses once the window is full", async () => {
      const { limiter } = setup();
      const a = id();
      await clearOfWindowEdge(60_000, 3_000);
      expect(await limiter.limit("minute", a, 10, 4)).toMatchObject({ success: true, remaining: 6 });
      expect(await limiter.limit("minute", a, 10, 6)).toMatchObject({ success: true, remaining: 0 });
      expect(await limiter.limit("minute", a, 10)).toMatchObject({ success: false, remaining: 0 });
      expect(await limiter.used("minute", a, 10)).toBe(10);
      // More than is left: refused (the tokens are taken, as the library's script does).
      const b = id();
      expect((await limiter.limit("minute", b, 10, 8)).success).toBe(true);
      expect(await limiter.limit("minute", b, 10, 4)).toMatchObject({ success: false, remaining: 0 });
      expect((await limiter.limit("minute", b, 10)).success).toBe(false);
    });

    it("takes a refunded token back into the window", async () => {
      const { limiter } = setup();
      const a = id();
      await clearOfWindowEdge(60_000, 3_000);
      for (let i = 0; i < 2; i++) expect((await limiter.limit("minute", a, 2)).success).toBe(true);
      expect((await limiter.limit("minute", a, 2)).success).toBe(false);
      await limiter.refund("minute", a, 2);
      expect((await limiter.limit("minute", a, 2)).success).toBe(true);
      expect((await limiter.limit("minute", a, 2)).success).toBe(false);
    });

    it("keeps identifiers and windows apart, counts down remaining, and resets", async () => {
      const { limiter } = setup();
      const [a, b] = [id(), id()];
      await clearOfWindowEdge(60_000, 3_000);
      expect((await limiter.limit("minute", a, 3)).remaining).toBe(2);
      expect((await limiter.limit("minute", a, 3)).remaining).toBe(1);
      expect((await limiter.limit("minute", a, 3)).success).toBe(true);
      expect((await limiter.limit("minute", a, 3)).success).toBe(false);
      expect((await limiter.limit("minute", b, 3)).success).toBe(true);
      expect((await limiter.limit("day", a, 3)).success).toBe(true);
      await limiter.reset(a);
      expect((await limiter.limit("minute", a, 3)).success).toBe(true);
    });

    it("says what an identifier used of a window without using any", async () => {
      const { limiter } = setup();
      const [a, b] = [id(), id()];
      expect(await limiter.used("day", a, 10)).toBe(0);
      for (let i = 0; i < 4; i++) await limiter.limit("day", a, 10);
      await limiter.limit("day", b, 10);
      expect(await limiter.used("day", a, 10)).toBe(4);
      expect(await limiter.used("day", a, 10)).toBe(4); // asking twice used nothing
      expect(await limiter.used("day", b, 10)).toBe(1);
      expect(await limiter.used("minute", a, 10)).toBe(0);
      await limiter.refund("day", a, 10);
      expect(await limiter.used("day", a, 10)).toBe(3);
      await limiter.reset(a);
      expect(await limiter.used("day", a, 10)).toBe(0);
    });

    it("keeps a quarter-hour window of its own, with its reset time, and resets it too", async () => {
      const { limiter } = setup();
      const a = id();
      await clearOfWindowEdge(900_000, 3_000);
      expect((await limiter.limit("quarterHour", a, 2)).success).toBe(true);
      expect((await limiter.limit("quarterHour", a, 2)).success).toBe(true);
      const refused = await limiter.limit("quarterHour", a, 2);
      expect(refused.success).toBe(false);
      expect(refused.reset % 900_000).toBe(0);
      expect(refused.reset - Date.now()).toBeLessThanOrEqual(900_000);
      expect((await limiter.limit("minute", a, 2)).success).toBe(true);
      await limiter.reset(a);
      expect((await limiter.limit("quarterHour", a, 2)).success).toBe(true);
    });

    it("keeps an hour window of its own, with its reset time, and resets it too", async () => {
      const { limiter } = setup();
      const a = id();
      await clearOfWindowEdge(3_600_000, 3_000);
      expect((await limiter.limit("hour", a, 2)).success).toBe(true);
      expect((await limiter.limit("hour", a, 2)).success).toBe(true);
      const refused = await limiter.limit("hour", a, 2);
      expect(refused.success).toBe(false);
      expect(refused.reset % 3_600_000).toBe(0);
      expect(refused.reset - Date.now()).toBeLessThanOrEqual(3_600_000);
      expect((await limiter.limit("quarterHour", a, 2)).success).toBe(true);
      await limiter.reset(a);
      expect((await limiter.limit("hour", a, 2)).success).toBe(true);
    });
  });
}

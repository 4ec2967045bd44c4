import { describe, expect, it } from "vitest";
import type { CoordinationUnderTest } from "./coordination";

/** The primitives the usage flush and its lock are built on; part of the coordination contract. */
export function claimsContract(name: string, setup: () => CoordinationUnderTest, id: () => string): void {
  describe(`flush primitives: ${name}`, () => {
    it("increments a counter and sets its TTL only when it is created", async () => {
      const under = setup();
      const key = id();
      const values = await Promise.all(Array.from({ length: 25 }, () => under.kv.increment(key, 2)));
      expect(values.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      await under.advance(1_100);
      expect(await under.kv.increment(key, 60)).toBe(26);
      expect(await under.kv.ttl(key)).toBeLessThanOrEqual(1); // not pushed to 60 by the later increment
    });

    it("increments by several at once, and sets the TTL only when it creates the key", async () => {
      const { kv } = setup();
      const key = id();
      expect(await kv.increment(key, 60, 15)).toBe(15);
      expect(await kv.ttl(key)).toBeGreaterThan(50);
      const values = await Promise.all(Array.from({ length: 10 }, () => kv.increment(key, 600, 3)));
      expect(values.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 18 + 3 * i));
      expect(await kv.ttl(key)).toBeLessThanOrEqual(60);
    });

    it("walks every key with a prefix through SCAN pages, and no other", async () => {
      const { kv } = setup();
      const prefix = `${id()}:`;
      const wanted = Array.from({ length: 120 }, (_, i) => `${prefix}${i}`);
      await Promise.all([...wanted, `${id()}:other`].map((key) => kv.set(key, "1", { ttlSeconds: 60 })));
      const found = new Set<string>();
      let cursor = "0";
      let pages = 0;
      do {
        const page = await kv.scan(prefix, cursor, 25);
        for (const key of page.keys) found.add(key);
        cursor = page.cursor;
        pages++;
      } while (cursor !== "0" && pages < 10_000);
      expect([...found].sort()).toEqual([...wanted].sort());
    });

    it("deletes or extends a lock only for the holder of its token", async () => {
      const { kv } = setup();
      const key = id();
      expect(await kv.set(key, "mine", { ttlSeconds: 5, onlyIfAbsent: true })).toBe(true);
      expect(await kv.expireIfEquals(key, "theirs", 100)).toBe(false);
      expect(await kv.deleteIfEquals(key, "theirs")).toBe(false);
      expect(await kv.expireIfEquals(key, "mine", 100)).toBe(true);
      expect(await kv.ttl(key)).toBeGreaterThan(90);
      expect(await kv.deleteIfEquals(key, "mine")).toBe(true);
      expect(await kv.get(key)).toBeNull();
      expect(await kv.expireIfEquals(key, "mine", 100)).toBe(false);
    });

    it("claims a hash's counters, keeps later increments outside the claim, and releases only that claim", async () => {
      const { kv } = setup();
      const key = id();
      expect(await kv.claimHashes([key], "c1")).toEqual([null]);
      await kv.incrementHash(key, { "p|k|req": 2, "p|k|bytes": 300 }, 600);
      const [first] = await kv.claimHashes([key], "c1");
      expect(first).toEqual({ claim: "c1", counters: { "p|k|req": 2, "p|k|bytes": 300 } });

      await kv.incrementHash(key, { "p|k|req": 1, "p|k|bytes": 7 }, 600); // lands during the flush
      // A retried flush gets the pending claim back, unchanged, whatever id it offers.
      expect(await kv.claimHashes([key], "c2")).toEqual([
        { claim: "c1", counters: { "p|k|req": 2, "p|k|bytes": 300 } },
      ]);
      await kv.releaseClaims([{ key, claim: "c2" }]); // not the pending claim: nothing happens
      expect((await kv.claimHashes([key], "c3"))[0]?.claim).toBe("c1");

      await kv.releaseClaims([{ key, claim: "c1" }]);
      expect(await kv.ttl(key)).toBeGreaterThan(500);
      expect(await kv.claimHashes([key], "c4")).toEqual([{ claim: "c4", counters: { "p|k|req": 1, "p|k|bytes": 7 } }]);
      await kv.releaseClaims([{ key, claim: "c4" }]);
      expect(await kv.ttl(key)).toBe(-2); // nothing left: the hash is gone
    });

    it("loses and duplicates nothing when increments race claim and release cycles", async () => {
      const { kv } = setup();
      const keys = [id(), id()];
      let claimed = 0;
      const writers = Array.from({ length: 200 }, (_, i) => kv.incrementHash(keys[i % 2]!, { "p|k|req": 1 }, 600));
      const flusher = (async () => {
        for (let round = 0; round < 20; round++) {
          const claims = await kv.claimHashes(keys, `r${round}`);
          for (const claim of claims) claimed += claim?.counters["p|k|req"] ?? 0;
          await kv.releaseClaims(keys.flatMap((key, i) => (claims[i] ? [{ key, claim: claims[i].claim }] : [])));
        }
      })();
      await Promise.all([...writers, flusher]);
      const rest = await kv.claimHashes(keys, "last");
      for (const claim of rest) claimed += claim?.counters["p|k|req"] ?? 0;
      expect(claimed).toBe(200);
    });
  });
}

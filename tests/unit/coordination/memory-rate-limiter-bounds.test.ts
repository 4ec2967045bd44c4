import { describe, expect, it } from "vitest";
import { isAddressSubject, rateLimitSubjects } from "@/server/coordination/keys";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";

/**
 * The in-process limiter under churn: a visitor who brings more addresses than it keeps must not make
 * it forget a window that refuses (a key's spent day, an account's failed sign-ins, another address's
 * spent minute), and its memory stays bounded.
 */
function limiter(maxAddresses = 1000) {
  let at = Date.UTC(2026, 10, 26, 12, 0, 10);
  const limiter = createMemoryRateLimiter({ now: () => at, isAddress: isAddressSubject, maxAddresses });
  return { limiter, advance: (ms: number) => (at += ms) };
}

const address = (i: number) =>
  rateLimitSubjects.addressRequests(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::`);

async function churn(l: ReturnType<typeof limiter>["limiter"], from: number, count: number) {
  for (let i = from; i < from + count; i++) await l.limit("minute", address(i), 1200);
}

describe("the in-process limiter's bounds", () => {
  it("keeps a key's spent day window through any number of new addresses", async () => {
    const { limiter: l } = limiter();
    const key = rateLimitSubjects.keyTransforms("pk_AAAAAAAAAAAAAAAAAAAAAA");
    for (let i = 0; i < 40; i++) expect((await l.limit("day", key, 40)).success).toBe(true);
    expect((await l.limit("day", key, 40)).success).toBe(false);
    await churn(l, 0, 5000);
    expect((await l.limit("day", key, 40)).success).toBe(false);
    expect(l.size().addresses).toBeLessThanOrEqual(1000);
  });

  it("keeps an account's failed sign-ins through churn", async () => {
    const { limiter: l } = limiter();
    for (let i = 0; i < 10; i++) await l.limit("quarterHour", "signin:victim", 10);
    await churn(l, 0, 5000);
    expect((await l.limit("quarterHour", "signin:victim", 10)).success).toBe(false);
  });

  it("keeps an address's refusing minute while newer addresses come and go, and drops only admitting ones", async () => {
    const { limiter: l } = limiter();
    const spent = address(999_999);
    for (let i = 0; i < 3; i++) await l.limit("minute", spent, 3);
    expect((await l.limit("minute", spent, 3)).success).toBe(false);
    await churn(l, 0, 5000);
    expect((await l.limit("minute", spent, 3)).success).toBe(false);
    expect(l.size().addresses).toBeLessThanOrEqual(1000);
  });

  it("counts new addresses together once every kept window refuses, instead of dropping one", async () => {
    const { limiter: l } = limiter(100);
    for (let i = 0; i < 100; i++) {
      await l.limit("minute", address(i), 1);
      expect((await l.limit("minute", address(i), 1)).success).toBe(false);
    }
    // The table is full of refusing windows: the newcomers share one window of the same size.
    expect((await l.limit("minute", address(1000), 2)).success).toBe(true);
    expect((await l.limit("minute", address(1001), 2)).success).toBe(true);
    expect((await l.limit("minute", address(1002), 2)).success).toBe(false);
    for (let i = 0; i < 100; i++) expect((await l.limit("minute", address(i), 1)).success).toBe(false);
    expect(l.size().addresses).toBeLessThanOrEqual(100);
  });

  it("frees what expired: the windows of addresses and keys gone quiet for two windows", async () => {
    const { limiter: l, advance } = limiter(100);
    for (let i = 0; i < 100; i++) {
      await l.limit("minute", address(i), 1);
      await l.limit("minute", address(i), 1);
    }
    await l.limit("minute", "pk_BBBBBBBBBBBBBBBBBBBBBB", 10);
    advance(3 * 60_000);
    // Their windows are over: a new address takes its own window again, and nothing old is kept.
    expect((await l.limit("minute", address(5000), 1)).success).toBe(true);
    expect((await l.limit("minute", address(5000), 1)).success).toBe(false);
    expect(l.size()).toEqual({ addresses: expect.any(Number) as unknown, others: 0 });
    expect(l.size().addresses).toBeLessThanOrEqual(91);
  });
});

describe("the in-process key-value store's bound", () => {
  it("drops expired keys nobody reads again", async () => {
    const { createMemoryKeyValue } = await import("@/server/coordination/memory-key-value");
    let at = 1_000_000;
    const kv = createMemoryKeyValue(() => at);
    for (let i = 0; i < 1000; i++) await kv.set(`log:failures:${i}`, "1", { ttlSeconds: 60 });
    await kv.incrementHash("usage:1", { requests: 1 }, 120);
    expect(kv.size()).toBe(1001);
    at += 61_000;
    await kv.set("fresh", "1", { ttlSeconds: 60 });
    expect(kv.size()).toBe(2); // the hash (120 s) and the new key
    at += 60_000;
    await kv.increment("counter", 60);
    expect(kv.size()).toBe(1); // the counter: the hash and the key of a minute ago have expired
  });
});

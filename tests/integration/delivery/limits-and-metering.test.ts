import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minuteStamp, redisKeys } from "@/server/coordination/keys";
import { leaseCap } from "@/server/coordination/token-leases";
import { apiKeys, projects, usageBuffer } from "@/server/db/schema";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge, windowEndSeconds } from "../../support/clock";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { setupAudit } from "../../support/audit";

let app: TestApp;
let origin: Origin;

/** Small per-address windows, so the tests can fill them; the defaults are checked in their own test. */
const ADDRESS_LIMITS = { requestsPerMinute: 40, transformsPerMinute: 10 };

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(30, 30), "image/png") });
  app = await createTestApp({
    sourceHosts: [origin.host],
    env: {
      OPTSTUFF_AUTH_FAILURES_PER_MINUTE: "3",
      OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE: String(ADDRESS_LIMITS.requestsPerMinute),
      OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE: String(ADDRESS_LIMITS.transformsPerMinute),
    },
  });
  // On Redis, the limiter's script is loaded before the first request, so no window fails open on NOSCRIPT.
  await app.services.coordination.limiter.warmUp();
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function keyWithLimits(perMinute: number | null, perDay: number | null) {
  await clearOfWindowEdge();
  const key = await createApiKey(
    { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
    { projectId: app.projectId },
    { name: `limits-${perMinute}-${perDay}` },
  );
  await app.services.database.db
    .update(apiKeys)
    .set({ rateLimitPerMinute: perMinute, rateLimitPerDay: perDay })
    .where(eq(apiKeys.id, key.id));
  return key;
}

/** Variant `n` of the origin's image: each `n` is one transform the first time it is asked for. */
const image = (key: { publicKey: string; secretKey: string }, n = 1) =>
  app.signedPath(`w_${n}`, `http://${origin.host}/a.png`, { key });

/** A visitor of its own: a fresh public address (IPv6 documentation prefix, one /64 each) per call. */
const newAddress = () => `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1`;
/** Request options from `address`, as the server stamps the socket's address (no proxy in front). */
const from = (address: string, headers: Record<string, string> = {}): RequestInit => ({
  headers: { [PEER_ADDRESS_HEADER]: address, ...headers },
});
/** Source fetches so far: one per transform the limits let through, nothing for a refusal or a cache hit. */
const fetches = () => origin.requests.length;

function expectContractHeaders(refused: Response, limit: number) {
  expect(refused.status).toBe(429);
  const retryAfter = Number(refused.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(refused.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
}

describe("per-key limits count transforms", () => {
  it("refuses a leaked key's transforms past its limit, from any address, before any fetch, with the contract's headers", async () => {
    const key = await keyWithLimits(3, null);
    const before = fetches();
    // New variants from new addresses: a leaked key signs whatever it likes, from anywhere.
    const responses = [];
    for (let n = 101; n <= 104; n++) responses.push(await app.fetch(image(key, n), from(newAddress())));
    expect(app.services.counters.get("ratelimit_fail_open")).toBe(0); // every window answered within its budget
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    const refused = responses[3]!;
    expectContractHeaders(refused, 3);
    expect(((await refused.json()) as { code: string }).code).toBe("RATE_LIMITED");
    // More at once, from more addresses: all refused.
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => app.fetch(image(key, 111 + i), from(newAddress()))),
    );
    for (const response of burst) expectContractHeaders(response, 3);
    expect(fetches() - before).toBe(3); // a refused transform fetched nothing
    await app.settled();
    expect(app.outcomes.at(-1)?.status).toBe("rate_limited");
  });

  it("charges nothing for cache hits, 304s, HEADs and shared results, and a spent key still serves what is cached", async () => {
    const key = await keyWithLimits(2, null);
    const before = fetches();
    const first = await app.fetch(image(key, 201), from(newAddress())); // transform 1 of 2
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    const visitors = Array.from({ length: 4 }, newAddress);
    for (const visitor of visitors) {
      for (let cb = 1; cb <= 5; cb++)
        expect((await app.fetch(`${image(key, 201)}&cb=${cb}`, from(visitor))).status).toBe(200);
      expect((await app.fetch(image(key, 201), from(visitor, { "If-None-Match": etag }))).status).toBe(304);
      expect((await app.fetch(image(key, 201), { ...from(visitor), method: "HEAD" })).status).toBe(200);
    }
    // Five visitors asking for one new variant at once share one transform, and one token: transform 2 of 2.
    const together = await Promise.all(Array.from({ length: 5 }, () => app.fetch(image(key, 202), from(newAddress()))));
    expect(together.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(fetches() - before).toBe(2);

    expectContractHeaders(await app.fetch(image(key, 203), from(newAddress())), 2); // a third transform: refused
    expect((await app.fetch(`${image(key, 201)}&cb=99`, from(newAddress()))).status).toBe(200);
    expect((await app.fetch(image(key, 202), from(newAddress()))).status).toBe(200);
    expect(fetches() - before).toBe(2);
  });

  it("counts the day window in transforms too, after the minute window", async () => {
    const key = await keyWithLimits(10, 2);
    const visitor = newAddress();
    expect((await app.fetch(image(key, 211), from(visitor))).status).toBe(200);
    for (let cb = 1; cb <= 5; cb++)
      expect((await app.fetch(`${image(key, 211)}&cb=${cb}`, from(visitor))).status).toBe(200);
    expect((await app.fetch(image(key, 212), from(visitor))).status).toBe(200);
    const asked = Date.now();
    const refused = await app.fetch(image(key, 213), from(visitor));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("2");
    // The day window frees capacity at UTC midnight: the headers say so, not the minute window's reset.
    const reset = Number(refused.headers.get("x-ratelimit-reset"));
    expect([windowEndSeconds(86_400_000, asked), windowEndSeconds(86_400_000)]).toContain(reset);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(reset - Math.ceil(Date.now() / 1000));
  });

  it("spends no day token on a minute refusal, gives a day-refused request's minute token back, and answers repeats from memory", async () => {
    const key = await keyWithLimits(2, 3);
    const statuses = [];
    for (let n = 221; n <= 224; n++) statuses.push((await app.fetch(image(key, n))).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const { limiter } = app.services.coordination;
    // Refunds are not awaited by the request: wait for the day token the minute refusal took to be back.
    await expect.poll(() => limiter.used("day", key.publicKey, 3)).toBe(2);
    expect(limiter.knownRefusal("minute", key.publicKey, 2)).not.toBeNull(); // repeats cost no Redis call
    // Two requests were admitted: the day window has exactly one token left.
    expect((await limiter.limit("day", key.publicKey, 3)).success).toBe(true);
    expect((await limiter.limit("day", key.publicKey, 3)).success).toBe(false);

    const dayBound = await keyWithLimits(5, 1);
    expect((await app.fetch(image(dayBound, 225))).status).toBe(200);
    expect((await app.fetch(image(dayBound, 226))).status).toBe(429);
    await expect.poll(() => limiter.used("minute", dayBound.publicKey, 5)).toBe(1);
    // Only the admitted request holds a minute token: four are left.
    for (let i = 0; i < 4; i++) expect((await limiter.limit("minute", dayBound.publicKey, 5)).success).toBe(true);
    expect((await limiter.limit("minute", dayBound.publicKey, 5)).success).toBe(false);
  });

  it("uses the defaults (600 transforms a minute, 100,000 a day) when the key's columns are null", async () => {
    const key = await keyWithLimits(null, null);
    const config = await app.services.config.getApiKey(key.publicKey);
    expect([config?.rateLimitPerMinute, config?.rateLimitPerDay]).toEqual([600, 100_000]);
    // 599 transforms' worth of earlier traffic, taken through the limiter itself (one pipeline).
    const { limiter } = app.services.coordination;
    await Promise.all(Array.from({ length: 599 }, () => limiter.limit("minute", key.publicKey, 600)));
    expect((await app.fetch(image(key, 231))).status).toBe(200);
    const refused = await app.fetch(image(key, 232));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("600");
    expect((await app.fetch(image(key, 231))).status).toBe(200); // cached: still served
  });

  it("lets an administrator reset a key's windows", async () => {
    const key = await keyWithLimits(1, null);
    expect((await app.fetch(image(key, 241))).status).toBe(200);
    expect((await app.fetch(image(key, 242))).status).toBe(429);
    await app.services.coordination.limiter.reset(key.publicKey);
    expect((await app.fetch(image(key, 242))).status).toBe(200);
  });
});

describe("per-address limits", () => {
  it("answers one address's cache-busting replays from the cache, throttles that address alone, and keeps serving everyone else", async () => {
    // The replay: one public URL with `&cb=1…` from one visitor, against a key that allows 5 transforms.
    const key = await keyWithLimits(5, null);
    const replayer = newAddress();
    const url = image(key, 301);
    const statuses = [];
    for (let cb = 1; cb <= ADDRESS_LIMITS.requestsPerMinute; cb++)
      statuses.push((await app.fetch(`${url}&cb=${cb}`, from(replayer))).status);
    expect(statuses).toEqual(Array<number>(ADDRESS_LIMITS.requestsPerMinute).fill(200));
    const throttled = await app.fetch(`${url}&cb=${ADDRESS_LIMITS.requestsPerMinute + 1}`, from(replayer));
    expectContractHeaders(throttled, ADDRESS_LIMITS.requestsPerMinute); // the address's own window, in its headers
    expect(((await throttled.json()) as { code: string }).code).toBe("RATE_LIMITED");

    const other = newAddress();
    expect((await app.fetch(`${url}&cb=1`, from(other))).status).toBe(200);
    for (let n = 302; n <= 305; n++) expect((await app.fetch(image(key, n), from(other))).status).toBe(200); // the key's other 4 transforms
  });

  it("gives one address at most its share of transforms, so it cannot spend a key's budget alone", async () => {
    const key = await keyWithLimits(100, null);
    // One subscriber's /64 is one address, whichever of its addresses a request comes from.
    const network = `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;
    const statuses = [];
    for (let n = 311; n <= 310 + ADDRESS_LIMITS.transformsPerMinute; n++)
      statuses.push((await app.fetch(image(key, n), from(`${network}::${n.toString(16)}`))).status);
    expect(statuses).toEqual(Array<number>(ADDRESS_LIMITS.transformsPerMinute).fill(200));
    const refused = await app.fetch(image(key, 330), from(`${network}::ffff`));
    expectContractHeaders(refused, ADDRESS_LIMITS.transformsPerMinute);
    // Still served what is cached, and the key's budget is there for everyone else.
    expect((await app.fetch(image(key, 311), from(`${network}::1`))).status).toBe(200);
    expect((await app.fetch(image(key, 330), from(newAddress()))).status).toBe(200);
    // The refused request's key tokens are given back after it: eleven transforms admitted (ten from the
    // network, one from elsewhere), then this probe: 88 left of 100. Where the limiter is shared, the
    // instance may also hold the unspent part of one reservation (token-leases.ts), counted as used.
    const unspent = app.services.coordination.redis ? leaseCap(100) - 1 : 0;
    const { limiter } = app.services.coordination;
    await expect.poll(() => limiter.used("minute", key.publicKey, 100)).toBeLessThanOrEqual(11 + unspent);
    expect(await limiter.used("minute", key.publicKey, 100)).toBeGreaterThanOrEqual(11);
  });

  it("does not lump together visitors it cannot tell apart: no address, or a private one (a proxy it was not told about)", async () => {
    const key = await keyWithLimits(100, null);
    const over = ADDRESS_LIMITS.requestsPerMinute + 5;
    for (const options of [{}, from("10.1.2.3"), from("127.0.0.1")]) {
      const statuses = [];
      for (let cb = 1; cb <= over; cb++)
        statuses.push((await app.fetch(`${image(key, 341)}&cb=${cb}`, options)).status);
      expect(statuses).toEqual(Array<number>(over).fill(200));
    }
    const transforms = [];
    for (let n = 342; n <= 343 + ADDRESS_LIMITS.transformsPerMinute; n++)
      transforms.push((await app.fetch(image(key, n), from("10.1.2.3"))).status);
    expect(transforms.every((status) => status === 200)).toBe(true);
  });
});

describe("pre-auth guard", () => {
  it("refuses an address after repeated authentication failures, before any lookup, and only that address", async () => {
    await clearOfWindowEdge(); // the guard blocks until its minute ends
    const attacker = { "X-Forwarded-For": "198.51.100.7" };
    const forged = image(app.key).replace(/sig=[^&]+/, `sig=${"C".repeat(32)}`);
    for (let i = 0; i < 3; i++) expect((await app.fetch(forged, { headers: attacker })).status).toBe(403);
    const blocked = await app.fetch(image(app.key), { headers: attacker });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await app.fetch(image(app.key), { headers: { "X-Forwarded-For": "198.51.100.8" } })).status).toBe(200);
  });
});

describe("after the response", () => {
  it("adds each served request and its bytes to the minute bucket, exactly (in Redis, or in the database without one)", async () => {
    const key = await keyWithLimits(100, null);
    const before = new Date();
    const bodies: number[] = [];
    for (let i = 1; i <= 5; i++) bodies.push((await (await app.fetch(image(key, i))).arrayBuffer()).byteLength);
    await app.fetch(image(key, 1), { method: "HEAD" });
    await app.settled();
    const after = new Date();
    const totals = { req: 0, bytes: 0 };
    if (app.services.usage.requestLog.metersUsage) {
      // No shared Redis: the minute buckets are usage_buffer rows, written with the request log.
      for (const row of await app.services.database.db
        .select()
        .from(usageBuffer)
        .where(eq(usageBuffer.apiKeyId, key.id))) {
        expect([minuteStamp(before), minuteStamp(after)]).toContain(row.bucket);
        totals.req += row.requests;
        totals.bytes += row.bytes;
      }
    }
    const buckets = new Set(
      app.services.usage.requestLog.metersUsage ? [] : [redisKeys.usageBucket(before), redisKeys.usageBucket(after)],
    );
    for (const bucket of buckets) {
      const hash = await app.services.coordination.kv.getHash(bucket);
      totals.req += hash[`${app.projectId}|${key.id}|req`] ?? 0;
      totals.bytes += hash[`${app.projectId}|${key.id}|bytes`] ?? 0;
      expect(await app.services.coordination.kv.ttl(bucket)).toBeGreaterThan(13 * 86_400);
    }
    expect(totals).toEqual({ req: 6, bytes: bodies.reduce((a, b) => a + b, 0) });
  });

  it("writes lastUsedAt and lastActivityAt at most once per 30 s window", async () => {
    const key = await keyWithLimits(100, null);
    const writesBefore = app.services.counters.get("activity_writes");
    for (let i = 1; i <= 4; i++) await app.fetch(image(key, i));
    await app.settled();
    const [row] = await app.services.database.db
      .select({ lastUsedAt: apiKeys.lastUsedAt })
      .from(apiKeys)
      .where(eq(apiKeys.id, key.id));
    expect(row?.lastUsedAt).toBeInstanceOf(Date);
    const [project] = await app.services.database.db
      .select({ at: projects.lastActivityAt })
      .from(projects)
      .where(eq(projects.id, app.projectId));
    expect(project?.at).toBeInstanceOf(Date);
    // One key write for this key; the project's window may already have been opened by earlier tests.
    expect(app.services.counters.get("activity_writes") - writesBefore).toBeLessThanOrEqual(2);
    expect(app.services.counters.get("activity_writes") - writesBefore).toBeGreaterThanOrEqual(1);
  });
});

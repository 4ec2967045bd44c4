import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "@/server/coordination/keys";
import { apiKeys, projects } from "@/server/db/schema";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

let app: TestApp;
let origin: Origin;

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(30, 30), "image/png") });
  app = await createTestApp({ sourceHosts: [origin.host], authFailuresPerMinute: 3 });
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function keyWithLimits(perMinute: number | null, perDay: number | null) {
  await clearOfWindowEdge();
  const key = await createApiKey({ db: app.services.database.db, secretBox: app.services.secretBox }, { projectId: app.projectId, name: `limits-${perMinute}-${perDay}` });
  await app.services.database.db.update(apiKeys).set({ rateLimitPerMinute: perMinute, rateLimitPerDay: perDay }).where(eq(apiKeys.id, key.id));
  return key;
}

const image = (key: { publicKey: string; secretKey: string }, n = 1) => app.signedPath(`w_${n}`, `http://${origin.host}/a.png`, { key });

describe("per-key rate limits", () => {
  it("admits the minute limit and refuses the next request with the contract's headers", async () => {
    const key = await keyWithLimits(3, null);
    const statuses = [];
    for (let i = 1; i <= 4; i++) statuses.push((await app.fetch(image(key, i))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await app.fetch(image(key, 9));
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("3");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(((await refused.json()) as { code: string }).code).toBe("RATE_LIMITED");
    await app.settled();
    expect(app.outcomes.at(-1)?.status).toBe("rate_limited");
  });

  it("applies the day window after the minute window, and counts 304s too", async () => {
    const key = await keyWithLimits(10, 2);
    const first = await app.fetch(image(key));
    const second = await app.fetch(image(key), { headers: { "If-None-Match": first.headers.get("etag")! } });
    expect([first.status, second.status]).toEqual([200, 304]);
    const third = await app.fetch(image(key));
    expect(third.status).toBe(429);
    expect(third.headers.get("x-ratelimit-limit")).toBe("2");
  });

  it("spends no day token on a minute refusal, gives a day-refused request's minute token back, and answers repeats from memory", async () => {
    const key = await keyWithLimits(2, 3);
    const statuses = [];
    for (let n = 1; n <= 4; n++) statuses.push((await app.fetch(image(key, n))).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    await new Promise((resolve) => setTimeout(resolve, 50)); // refunds are not awaited by the request
    const { limiter } = app.services.coordination;
    expect(limiter.knownRefusal("minute", key.publicKey, 2)).not.toBeNull(); // repeats cost no Redis call
    // Two requests were admitted: the day window has exactly one token left.
    expect((await limiter.limit("day", key.publicKey, 3)).success).toBe(true);
    expect((await limiter.limit("day", key.publicKey, 3)).success).toBe(false);

    const dayBound = await keyWithLimits(5, 1);
    expect((await app.fetch(image(dayBound, 1))).status).toBe(200);
    expect((await app.fetch(image(dayBound, 2))).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Only the admitted request holds a minute token: four are left.
    for (let i = 0; i < 4; i++) expect((await limiter.limit("minute", dayBound.publicKey, 5)).success).toBe(true);
    expect((await limiter.limit("minute", dayBound.publicKey, 5)).success).toBe(false);
  });

  it("uses the defaults (60 per minute) when the key's columns are null", async () => {
    const key = await keyWithLimits(null, null);
    const responses = await Promise.all(Array.from({ length: 61 }, (_, i) => app.fetch(image(key, (i % 5) + 1))));
    expect(responses.filter((r) => r.status === 200 || r.status === 304)).toHaveLength(60);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(1);
  });

  it("lets an administrator reset a key's windows", async () => {
    const key = await keyWithLimits(1, null);
    expect((await app.fetch(image(key))).status).toBe(200);
    expect((await app.fetch(image(key))).status).toBe(429);
    await app.services.coordination.limiter.reset(key.publicKey);
    expect((await app.fetch(image(key))).status).toBe(200);
  });
});

describe("pre-auth guard", () => {
  it("refuses an address after repeated authentication failures, before any lookup, and only that address", async () => {
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
  it("adds each served request and its bytes to the minute bucket, exactly", async () => {
    const key = await keyWithLimits(100, null);
    const before = new Date();
    const bodies: number[] = [];
    for (let i = 1; i <= 5; i++) bodies.push((await (await app.fetch(image(key, i))).arrayBuffer()).byteLength);
    await app.fetch(image(key, 1), { method: "HEAD" });
    await app.settled();
    const after = new Date();
    const buckets = new Set([redisKeys.usageBucket(before), redisKeys.usageBucket(after)]);
    const totals = { req: 0, bytes: 0 };
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
    const [row] = await app.services.database.db.select({ lastUsedAt: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.lastUsedAt).toBeInstanceOf(Date);
    const [project] = await app.services.database.db.select({ at: projects.lastActivityAt }).from(projects).where(eq(projects.id, app.projectId));
    expect(project?.at).toBeInstanceOf(Date);
    // One key write for this key; the project's window may already have been opened by earlier tests.
    expect(app.services.counters.get("activity_writes") - writesBefore).toBeLessThanOrEqual(2);
    expect(app.services.counters.get("activity_writes") - writesBefore).toBeGreaterThanOrEqual(1);
  });
});

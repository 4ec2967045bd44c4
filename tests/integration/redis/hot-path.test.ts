import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "@/server/db/schema";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createApiKey } from "@/server/tenancy/create-api-key";
import type { TestApp } from "../../support/app";
import type { Origin } from "../../support/origin";
import { clearOfWindowEdge } from "../../support/clock";
import type { RealRedis } from "../../support/redis";
import { startRedisApp, type RedisApp } from "../../support/redis-app";
import { need } from "../../support/services";
import { setupAudit } from "../../support/audit";

const redisServer = need("redis-server");

let redis: RealRedis;
let origin: Origin;
let app: TestApp;
const report: Record<string, { roundTrips: number; commands: Record<string, number> }> = {};

let world: RedisApp | undefined;

beforeAll(async () => {
  if (redisServer.skip) return;
  // Production settings: L1 on (1 s), real Redis behind it.
  world = await startRedisApp({ OPTSTUFF_CONFIG_CACHE_TTL_MS: "1000" });
  ({ redis, origin, app } = world);
}, 60_000);

afterAll(async () => {
  console.log(
    `Redis round trips per image request (blocking, counted at the endpoint):\n${JSON.stringify(report, null, 2)}`,
  );
  await world?.close();
});

/** Endpoint requests made while one image request was in flight (after-response work excluded). */
async function measure(kind: string, path: string, init?: RequestInit): Promise<Response> {
  await app.settled();
  redis.endpoint.resetStats();
  const response = await app.fetch(path, init);
  const stats = redis.endpoint.stats();
  report[kind] = { roundTrips: stats.requests, commands: { ...stats.byCommand } };
  await app.settled();
  return response;
}

describe.skipIf(redisServer.skip)(redisServer.title("hot-path Redis budget"), () => {
  it("lets concurrent cold requests for one key share one read of it (no stampede)", async () => {
    const key = await createApiKey(
      { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
      { projectId: app.projectId },
      { name: "stampede" },
    );
    await app.services.invalidate.project(app.projectId); // the project is cold too
    await app.settled();
    redis.endpoint.resetStats();
    // One variant for all: thirty distinct transforms would (rightly) overflow the test app's queue.
    const path = app.signedPath("w_7", `http://${origin.host}/a.png`, { key });
    const responses = await Promise.all(Array.from({ length: 30 }, () => app.fetch(path)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    // One GET for the key and one for the project, for thirty requests arriving at once.
    expect(redis.endpoint.stats().byCommand.GET).toBe(2);
    await app.settled();
  });

  it("takes one blocking round trip when warm, whatever the request costs, and says what cold and refused requests cost", async () => {
    await clearOfWindowEdge();
    const key = await createApiKey(
      { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
      { projectId: app.projectId },
      { name: "budget" },
    );
    await app.services.database.db.update(apiKeys).set({ rateLimitPerMinute: 3 }).where(eq(apiKeys.id, key.id));
    const url = (n: number) => app.signedPath(`w_${n}`, `http://${origin.host}/a.png`, { key });
    // A visitor with a public address: the per-address windows apply (production defaults).
    const visitor = (headers: Record<string, string> = {}) => ({
      headers: { [PEER_ADDRESS_HEADER]: "2001:db8:77:1::1", ...headers },
    });
    await app.services.invalidate.project(app.projectId); // cold: neither tier holds the project

    expect((await measure("cold transform", url(1), visitor())).status).toBe(200);
    expect(report["cold transform"]!.commands.GET).toBe(2); // key and project, both missing from Redis
    // The address's request and transform windows, the key's minute and day windows: one pipeline.
    expect(report["cold transform"]!.commands.EVALSHA).toBe(4);

    const transform = await measure("warm transform", url(2), visitor());
    expect(transform.status).toBe(200);
    expect(report["warm transform"]!.roundTrips).toBe(1); // all four windows in one pipeline
    expect(report["warm transform"]!.commands).toEqual({ EVALSHA: 4 });

    // The address's request window only, and the transform just before reserved two of its tokens
    // (token-leases.ts): the hit spends the second from memory.
    expect((await measure("warm cache hit", `${url(2)}&cb=1`, visitor())).status).toBe(200);
    expect(report["warm cache hit"]!.roundTrips).toBe(0);

    expect(
      (await measure("warm 304", url(2), visitor({ "If-None-Match": transform.headers.get("etag")! }))).status,
    ).toBe(304);
    expect(report["warm 304"]!.commands).toEqual({ EVALSHA: 1 });

    await new Promise((resolve) => setTimeout(resolve, 1_150)); // past the L1 TTL
    expect((await measure("warm, L1 expired", url(3), visitor())).status).toBe(200);
    expect(report["warm, L1 expired"]!.commands.GET).toBe(2);

    // The key's three transforms are spent.
    expect((await measure("rate-limited", url(4), visitor())).status).toBe(429);
    expect(report["rate-limited"]!.commands.EVALSHA).toBe(4); // one pipeline; the three refunds leave after the answer
    expect((await measure("rate-limited again", url(5), visitor())).status).toBe(429);
    expect(report["rate-limited again"]!.roundTrips).toBe(0); // the refusal is remembered in process (refusal-memo.ts)
    expect((await measure("spent key, cache hit", url(1), visitor())).status).toBe(200); // cached: still served
    // Its request token is the second of the two the refused request reserved in the address's window.
    expect(report["spent key, cache hit"]!.roundTrips).toBe(0);
  });
});

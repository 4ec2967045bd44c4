import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "@/server/coordination/keys";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { setupAudit } from "../../support/audit";
import type { TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import type { Origin } from "../../support/origin";
import type { RealRedis } from "../../support/redis";
import { startRedisApp, type RedisApp } from "../../support/redis-app";
import { need } from "../../support/services";

/**
 * What each request costs the shared Redis, after-response work included (issue: shared tiers written
 * once per request). Counted at the Upstash-compatible endpoint, every command, blocking or not.
 */
const redisServer = need("redis-server");

let redis: RealRedis;
let origin: Origin;
let app: TestApp;
const report: Record<string, { requests: number; commandsPerRequest: number; commands: Record<string, number> }> = {};

let world: RedisApp | undefined;

beforeAll(async () => {
  if (redisServer.skip) return;
  world = await startRedisApp({ OPTSTUFF_CONFIG_CACHE_TTL_MS: "60000" });
  ({ redis, origin, app } = world);
}, 60_000);

afterAll(async () => {
  console.log(`Redis commands per request, after-response work included:\n${JSON.stringify(report, null, 2)}`);
  await world?.close();
});

/** Every endpoint command the requests cost, until their after-response work is done. */
async function counted(kind: string, requests: Array<() => Promise<Response>>, concurrency: number) {
  await app.settled();
  redis.endpoint.resetStats();
  for (let i = 0; i < requests.length; i += concurrency) {
    const answers = await Promise.all(requests.slice(i, i + concurrency).map((send) => send()));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  }
  await app.settled();
  await new Promise((resolve) => setTimeout(resolve, 100)); // past the last usage window
  const stats = redis.endpoint.stats();
  report[kind] = {
    requests: requests.length,
    commandsPerRequest: stats.commands / requests.length,
    commands: stats.byCommand,
  };
  return report[kind];
}

describe.skipIf(redisServer.skip)(redisServer.title("what a request writes to the shared Redis"), () => {
  it("an origin hit costs a share of a token reservation and of one usage write per window, activity asked once per window", async () => {
    await clearOfWindowEdge(60_000, 10_000);
    const key = await createApiKey(
      { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
      { projectId: app.projectId },
      { name: "shared tiers" },
    );
    const path = app.signedPath("w_9", `http://${origin.host}/a.png`, { key });
    // A public visitor: the per-address request window applies, as in production.
    const send = (n: number) => () =>
      app.fetch(`${path}&cb=${n}`, { headers: { [PEER_ADDRESS_HEADER]: "2001:db8:5::1" } });
    const cold = await counted("cold transform", [send(0)], 1);
    // Key and project read and kept in Redis (2 GET, 2 SET), four limiter windows, the activity of key
    // and project (2 SET NX), one usage MULTI (HINCRBY for the request, its bytes and its transform, which
    // spend caps count; EXPIRE), and the project's request-log
    // rows for the minute, a chunk of them (log-allowance.ts): one script, which a Redis that has not
    // run it yet refuses by its hash once (then EVAL).
    const { EVAL: loaded = 0, ...commands } = cold.commands;
    expect(loaded).toBeLessThanOrEqual(1);
    expect(commands).toEqual({ GET: 2, SET: 4, EVALSHA: 5, HINCRBY: 3, EXPIRE: 1 });

    const hits = await counted(
      "origin hit, 8 at a time",
      Array.from({ length: 64 }, (_, n) => send(n + 1)),
      8,
    );
    // The address's request window (token-leases.ts): the first eight's reservations leave together
    // (1, 2, 4 and 8 tokens), then 16 at a time.
    expect(hits.commands.EVALSHA).toBeLessThanOrEqual(12);
    expect(hits.commands.SET ?? 0).toBe(0); // activity already asked within its 30 s window
    // One usage write per window (two HINCRBY and an EXPIRE) shared by the requests in it: eight at once.
    expect(hits.commands.HINCRBY).toBeLessThanOrEqual(2 * 10);
    expect(hits.commandsPerRequest).toBeLessThanOrEqual(1); // the target

    const alone = await counted(
      "origin hit, one at a time",
      Array.from({ length: 8 }, (_, n) => send(n + 100)),
      1,
    );
    // Alone in its window, a hit may pay for its own usage write (three commands); the reservation is shared.
    expect(alone.commands.EVALSHA ?? 0).toBeLessThanOrEqual(4);
    expect(alone.commandsPerRequest).toBeLessThanOrEqual(4);

    // Transforms of new variants, four at a time: four windows reserved alike, plus the usage writes.
    const variants = Array.from({ length: 32 }, (_, n) => () => {
      const variant = app.signedPath(`w_${20 + n}`, `http://${origin.host}/a.png`, { key });
      return app.fetch(variant, { headers: { [PEER_ADDRESS_HEADER]: "2001:db8:5::1" } });
    });
    const transforms = await counted("cold transforms of new variants, 4 at a time", variants, 4);
    expect(transforms.commandsPerRequest).toBeLessThanOrEqual(4); // the target

    // Exact metering: every request is in the buckets, whatever window carried it.
    const counts = await app.services.coordination.kv.getHash(redisKeys.usageBucket(new Date()));
    expect(counts[`${app.projectId}|${key.id}|req`]).toBe(1 + 64 + 8 + 32);
  });
});

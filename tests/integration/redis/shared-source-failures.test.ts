import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { createTestApp, type TestApp } from "../../support/app";
import { createTestDatabase } from "../../support/database";
import { startOrigin, type Origin } from "../../support/origin";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { need } from "../../support/services";

/**
 * A source failure was remembered per instance: behind a load balancer each instance fetched a missing
 * source again. It is now also kept in Redis (30 s, under the source key's digest), so the first
 * instance's fetch answers the replays every instance receives.
 */
const needs = need("redis-server");
let database: DatabaseHandle;
let redis: RealRedis;
let origin: Origin;
let instances: TestApp[] = [];

beforeAll(async () => {
  if (needs.skip) return;
  database = await createTestDatabase();
  redis = await startRealRedis();
  origin = await startOrigin({ "/missing.png": (_, response) => void response.writeHead(404).end("gone") });
  for (let i = 0; i < 2; i++)
    instances.push(await createTestApp({ database, redis: redis.settings, sourceHosts: [origin.host] }));
}, 60_000);
afterAll(async () => {
  for (const instance of instances) await instance.close();
  instances = [];
  await origin?.close();
  await redis?.stop();
  await database?.close();
});

describe.skipIf(needs.skip)(needs.title("a source failure shared through Redis"), () => {
  it("is fetched once for the replays that reach every instance", async () => {
    const [a, b] = instances as [TestApp, TestApp];
    const path = (n: number) =>
      a.signedPath(`w_${n}`, `http://${origin.host}/missing.png?token=s3cret`, { key: a.key, slug: a.projectSlug });
    expect((await a.fetch(path(10))).status).toBe(404);
    for (let i = 0; i < 6; i++) {
      const instance = i % 2 === 0 ? b : a;
      const response = await instance.fetch(path(11 + i));
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("SOURCE_NOT_FOUND");
    }
    expect(origin.requests.filter((r) => r.url?.startsWith("/missing.png")).length).toBe(1);
  });

  it("keeps neither the source's URL nor its query in Redis", async () => {
    const kv = instances[0]!.services.coordination.kv;
    const { keys } = await kv.scan("source:failure:", "0", 100);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain("missing.png");
    const value = (await kv.get(keys[0]!))!;
    expect(JSON.parse(value).error.code).toBe("SOURCE_NOT_FOUND");
    expect(value).not.toContain("s3cret");
  });
});

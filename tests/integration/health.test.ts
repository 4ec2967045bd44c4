import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCoordination } from "@/server/coordination/create-coordination";
import { checkHealth } from "@/server/health";
import { createHealthRouteHandler } from "@/server/http/health-route";
import { createLogger } from "@/server/log";
import type { Services } from "@/server/services";
import { createTestApp, type TestApp, NO_REDIS, redisSettings } from "../support/app";
import { startRealRedis, type RealRedis } from "../support/redis";
import { need } from "../support/services";

let app: TestApp;
const lines: string[] = [];
beforeAll(async () => {
  app = await createTestApp({ env: NO_REDIS, seams: { logger: createLogger("debug", (line) => lines.push(line)) } });
}, 60_000);
afterAll(async () => app?.close());

/** The same services, with Redis settings that lead nowhere (a closed port). */
function withUnreachableRedis(services: Services): Services {
  return {
    ...services,
    coordination: createCoordination({
      transport: "rest",
      url: "http://127.0.0.1:1",
      token: "unreachable-redis-token",
    }),
  };
}

const probe = (services: Services) =>
  createHealthRouteHandler(async () => services)(new Request("http://optstuff.test/api/health"));

describe("health", () => {
  it("is ready when the database answers, and says Redis is not configured on the in-process default", async () => {
    const report = await checkHealth(async () => app.services);
    expect(report.status).toBe("ok");
    expect(report.checks?.database?.ok).toBe(true);
    expect(report.checks?.redis).toEqual({ configured: false });
    expect(report.mode).toBe(app.services.database.kind === "pglite" ? "embedded" : "self-hosted");
  });

  it("is unavailable, naming the failed check without detail, when the database is gone", async () => {
    const report = await checkHealth(async () => ({
      ...app.services,
      database: {
        ...app.services.database,
        ping: () => Promise.reject(new Error("password authentication failed for postgres://u:secret@db")),
      },
    }));
    expect(report).toEqual({
      status: "unavailable",
      mode: app.services.deployment,
      checks: { database: { ok: false, error: "unreachable" }, redis: { configured: false } },
    });
    expect(JSON.stringify(report)).not.toContain("secret");
  });

  it("stays 200 but degraded when Redis is unreachable: the image route serves without it", async () => {
    const response = await probe(withUnreachableRedis(app.services));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      status: "degraded",
      mode: app.services.deployment,
      checks: {
        database: { ok: true, latencyMs: expect.any(Number) as unknown },
        redis: { configured: true, ok: false, error: "unreachable" },
      },
    });
    expect(text).not.toContain("unreachable-redis-token");
    expect(text).not.toContain("127.0.0.1:1");
  });

  it("answers 503 when the database is gone, whatever Redis says", async () => {
    const services = withUnreachableRedis(app.services);
    const response = await probe({
      ...services,
      database: { ...services.database, ping: () => Promise.reject(new Error("gone")) },
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      status: "unavailable",
      checks: { database: { ok: false }, redis: { ok: false } },
    });
  });

  it("logs a failed check with the cause's stack, redacted, though the answer names no detail", async () => {
    const secret = `sk_${"S".repeat(40)}`;
    lines.length = 0;
    const response = await probe({
      ...app.services,
      database: {
        ...app.services.database,
        ping: () => Promise.reject(new Error(`connection refused with ${secret}`)),
      },
    });
    expect(response.status).toBe(503);
    const line = lines.find((l) => l.includes("health check failed"));
    expect(line).toBeDefined();
    const logged = JSON.parse(line!) as { level: string; check: string; stack?: string };
    expect(logged).toMatchObject({ level: "error", check: "database" });
    expect(logged.stack).toContain("health.test.ts");
    expect(line).not.toContain(secret);
  });
});

const redisServer = need("redis-server");
describe.skipIf(redisServer.skip)(redisServer.title("health on real Redis"), () => {
  let redis: RealRedis;
  let onRedis: TestApp;
  beforeAll(async () => {
    redis = await startRealRedis();
    onRedis = await createTestApp({ env: { ...redisSettings(redis.settings) } });
  }, 60_000);
  afterAll(async () => {
    await onRedis?.close();
    await redis?.stop();
  });

  it("reports real Redis as configured and reachable, with its round trip in ms, and no URL or token", async () => {
    const response = await probe(onRedis.services);
    expect(response.status).toBe(200);
    const text = await response.text();
    const report = JSON.parse(text) as {
      status: string;
      checks: { redis: { configured: boolean; ok: boolean; latencyMs: number } };
    };
    expect(report.status).toBe("ok");
    expect(report.checks.redis).toEqual({ configured: true, ok: true, latencyMs: expect.any(Number) as unknown });
    expect(report.checks.redis.latencyMs).toBeGreaterThanOrEqual(0);
    for (const secret of [redis.settings.url, redis.settings.token, new URL(redis.settings.url).host])
      expect(text).not.toContain(secret);
  });
});

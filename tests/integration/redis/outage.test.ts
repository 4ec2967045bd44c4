import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failurePolicy } from "@/server/coordination/failure-policy";
import { apiKeys } from "@/server/db/schema";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { startRedisServer, type RedisProcess } from "../../../tools/redis-rest/redis-process";
import { createRedisRestServer, type RedisRestServer } from "../../../tools/redis-rest/server";
import { createTestApp, type TestApp, redisSettings } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { need } from "../../support/services";
import { setupAudit } from "../../support/audit";

const redisServer = need("redis-server");

const BOUND_MS = failurePolicy.configRead.timeoutMs * 2 + failurePolicy.rateLimit.timeoutMs * 2 + 1_000;

// Both ways an instance reaches Redis: the Upstash REST endpoint and TCP (REDIS_URL).
for (const transport of ["rest", "tcp"] as const) {
  describe.skipIf(redisServer.skip)(redisServer.title(`Redis outage (${transport})`), () => {
    let server: RedisProcess;
    let endpoint: RedisRestServer;
    let origin: Origin;
    let app: TestApp;
    let key: { id: string; publicKey: string; secretKey: string };

    beforeAll(async () => {
      if (redisServer.skip) return;
      server = await startRedisServer();
      const token = randomBytes(12).toString("hex");
      endpoint = await createRedisRestServer({ redis: { host: server.host, port: server.port }, token });
      origin = await startOrigin({ "/a.png": serveBytes(await makePng(20, 20), "image/png") });
      const redis =
        transport === "rest"
          ? ({ transport, url: endpoint.url, token } as const)
          : ({ transport, url: `redis://${server.host}:${server.port}` } as const);
      // L1 off: every request must go through Redis (or its failure policy) for config.
      app = await createTestApp({
        sourceHosts: [origin.host],
        env: { ...redisSettings(redis), OPTSTUFF_CONFIG_CACHE_TTL_MS: "0" },
      });
      await app.services.coordination.limiter.warmUp();
      key = await createApiKey(
        { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
        { projectId: app.projectId },
        { name: "outage" },
      );
      await app.services.database.db.update(apiKeys).set({ rateLimitPerMinute: 5 }).where(eq(apiKeys.id, key.id));
    }, 60_000);

    afterAll(async () => {
      await app?.close();
      await endpoint?.close();
      await server?.stop();
      await origin?.close();
    });

    const url = (n: number) => app.signedPath(`w_${n}`, `http://${origin.host}/a.png`, { key });

    /** Status and duration of one request; the bound allows the two budgets plus ordinary work. */
    async function timed(n: number): Promise<{ status: number; ms: number }> {
      const started = performance.now();
      const response = await app.fetch(url(n));
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    }

    it("keeps serving while redis-server is dead, within the budgets, and enforces limits again once it returns", async () => {
      // Under the limit before the outage: a key already over it stays refused from the limiter's
      // in-memory blocked cache until its window resets, Redis or not (correct, and not what this tests).
      for (let n = 1; n <= 3; n++) expect((await timed(n)).status).toBe(200);

      await server.stop(); // the process is killed: connections refused from now on
      const during = [];
      for (let n = 7; n <= 16; n++) during.push(await timed(n));
      // Served from Postgres with limits failing open: ten requests over a limit of five all succeed.
      expect(during.map((r) => r.status)).toEqual(Array(10).fill(200));
      for (const { ms } of during) expect(ms).toBeLessThan(BOUND_MS); // the client's default retries would take ~4 s
      expect(app.services.counters.get("ratelimit_fail_open")).toBeGreaterThan(0);
      expect(app.services.counters.get("redis_failure_configRead")).toBeGreaterThan(0);
      await app.settled(); // after-response failures are logged and counted, never thrown

      server = await startRedisServer({ port: server.port }); // same address: the endpoint reconnects
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await app.services.coordination.limiter.warmUp();
      await app.services.coordination.limiter.reset(key.publicKey); // counters from before the outage died with Redis anyway
      await clearOfWindowEdge();
      const after = [];
      for (let n = 20; n <= 26; n++) after.push((await timed(n)).status);
      expect(after).toEqual([200, 200, 200, 200, 200, 429, 429]);
    }, 60_000);
  });
}

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfigInvalidator } from "@/server/config-cache";
import { createCounters } from "@/server/coordination/counters";
import { redisKeys } from "@/server/coordination/keys";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import { cronRunState } from "@/server/cron/cron-runs";
import { createCronJobs } from "@/server/cron/jobs";
import { createCronRouteHandler } from "@/server/http/cron-route";
import { apiKeys, requestLog, requestSourceStats, requestStats, usageFlushLedger } from "@/server/db/schema";
import { createLogger } from "@/server/log";
import type { Services } from "@/server/services";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { createTestApp, testRedisSettings, type TestApp, redisSettings } from "../../support/app";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { setupAudit } from "../../support/audit";
import { createTestLogger } from "../../support/test-log";

let app: TestApp;
let origin: Origin;
let redis: RealRedis | null = null;
const SECRET = "test-cron";

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(64, 48), "image/png") });
  // A flush sweeps every bucket in its Redis: its own redis-server, never one shared with other files.
  redis = testRedisSettings() ? await startRealRedis() : null;
  // The jobs' clock runs three minutes ahead, so the minute just served is old enough to flush.
  app = await createTestApp({
    sourceHosts: [origin.host],
    env: { ...redisSettings(redis?.settings ?? null) },
    seams: { now: () => new Date(Date.now() + 3 * 60_000) },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await redis?.stop();
  await origin?.close();
});

const call = (
  job: "flush-usage-buffer" | "daily-maintenance",
  authorization?: string,
  services: Partial<Services> = {},
) =>
  createCronRouteHandler(
    async () => ({ ...app.services, ...services }),
    job,
  )(new Request(`http://optstuff.test/api/cron/${job}`, { headers: authorization ? { authorization } : {} }));

describe("cron routes", () => {
  it("refuse without the bearer secret, and stay closed when no secret is configured", async () => {
    for (const authorization of [
      undefined,
      "Bearer wrong",
      `Bearer ${SECRET}x`,
      "Bearer ",
      `Basic ${SECRET}`,
      SECRET,
    ]) {
      const response = await call("flush-usage-buffer", authorization);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ ok: false, code: "CRON_UNAUTHORIZED" });
    }
    const closed = await call("daily-maintenance", `Bearer ${SECRET}`, {
      secrets: { ...app.services.secrets, cron: null },
    });
    expect(closed.status).toBe(503);
    expect(await closed.json()).toMatchObject({ code: "CRON_NOT_CONFIGURED" });
    expect((await cronRunState(app.services.database.db, "daily-maintenance")).lastStartedAt).toBeNull();
  });

  it("flushes what was served and reports exact totals, recording the run", async () => {
    let bytes = 0;
    for (let i = 1; i <= 5; i++) {
      const response = await app.fetch(app.signedPath(`w_${10 + i}`, `http://${origin.host}/a.png`));
      expect(response.status).toBe(200);
      bytes += (await response.arrayBuffer()).byteLength;
    }
    await app.settled();
    const response = await call("flush-usage-buffer", `Bearer ${SECRET}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const report = await response.json();
    expect(report).toMatchObject({ ok: true, outcome: "flushed", requests: 5, bytes, droppedRequests: 0 });
    expect(report.buckets.applied).toBeGreaterThanOrEqual(1);
    expect(typeof report.durationMs).toBe("number");
    const state = await cronRunState(app.services.database.db, "flush-usage-buffer");
    expect(state.lastSuccessAt).not.toBeNull();
    expect(state.lastError).toBeNull();
  });

  it("records a flush that found the lock held as skipped: neither a success that moves the freshness nor a failure", async () => {
    const { db } = app.services.database;
    const { kv } = app.services.coordination;
    expect((await call("flush-usage-buffer", `Bearer ${SECRET}`)).status).toBe(200);
    const before = await cronRunState(db, "flush-usage-buffer");
    const freshness = await app.services.jobs.cron.freshness();
    expect(before.lastOutcome).toBe("success");
    await new Promise((resolve) => setTimeout(resolve, 10));

    await kv.set(redisKeys.usageFlushLock(), "another-flush", { ttlSeconds: 30 });
    try {
      const response = await call("flush-usage-buffer", `Bearer ${SECRET}`);
      expect(response.status).toBe(200); // not an alarm for a scheduler that retries on 5xx
      expect(await response.json()).toMatchObject({ ok: true, skipped: true, outcome: "locked", requests: 0 });
    } finally {
      await kv.del([redisKeys.usageFlushLock()]);
    }
    const after = await cronRunState(db, "flush-usage-buffer");
    expect(after).toMatchObject({ lastOutcome: "skipped", lastSuccessAt: before.lastSuccessAt, lastError: null });
    expect(after.lastFinishedAt!.getTime()).toBeGreaterThan(before.lastFinishedAt!.getTime());
    expect(await app.services.jobs.cron.freshness()).toEqual(freshness);
  });

  it("runs the daily maintenance: retention, expired keys, queued invalidations, ledger pruning", async () => {
    const { db } = app.services.database;
    const now = Date.now() + 3 * 60_000;
    const day = 24 * 60 * 60 * 1000;
    await db.insert(requestLog).values([
      {
        requestId: "old",
        projectId: app.projectId,
        status: "success",
        httpStatus: 200,
        createdAt: new Date(now - 31 * day),
      },
      {
        requestId: "recent",
        projectId: app.projectId,
        status: "success",
        httpStatus: 200,
        createdAt: new Date(now - 29 * day),
      },
    ]);
    const expiring = await createApiKey(
      { db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
      { projectId: app.projectId },
      { name: "expiring" },
    );
    await db
      .update(apiKeys)
      .set({ expiresAt: new Date(now - 1000) })
      .where(eq(apiKeys.id, expiring.id));
    await db.insert(usageFlushLedger).values([
      { bucket: "202001010000", claim: "old", rows: 1, requests: 1, bytes: 1, flushedAt: new Date(now - 16 * day) },
      { bucket: "202001010001", claim: "kept", rows: 1, requests: 1, bytes: 1, flushedAt: new Date(now - 13 * day) },
    ]);

    const counted = { status: "success", cache: "hit", requests: 1, processingMs: 1, measuredRequests: 0 };
    const sums = { sourceBytes: 0, outputBytes: 0, le10: 1, le25: 0, le50: 0, le100: 0, le250: 0, le500: 0 };
    const rest = { le1000: 0, le2500: 0, le5000: 0, over: 0 };
    await db.insert(requestStats).values(
      [92, 89].map((ago) => ({
        ...counted,
        ...sums,
        ...rest,
        projectId: app.projectId,
        hour: new Date(Math.floor((now - ago * day) / 3_600_000) * 3_600_000),
      })),
    );
    await db.insert(requestSourceStats).values(
      [92, 89].map((ago) => ({
        projectId: app.projectId,
        day: new Date(now - ago * day).toISOString().slice(0, 10),
        sourceHash: `h${ago}`,
        sourceUrl: "local/photo.jpg",
        requests: 1,
        outputBytes: 1,
      })),
    );

    const response = await call("daily-maintenance", `Bearer ${SECRET}`);
    const report = await response.json();
    expect(response.status).toBe(200);
    expect(report.ok).toBe(true);
    expect(report.parts).toMatchObject({
      flushUsage: { ok: true },
      requestLogRetention: { ok: true, result: { deleted: 1 } },
      requestStatsRetention: { ok: true, result: { deleted: 2 } },
      expiredKeys: { ok: true, result: { marked: 1 } },
      ledgerPrune: { ok: true, result: { deleted: 1 } },
    });
    expect((await db.select().from(requestLog)).map((r) => r.requestId)).not.toContain("old");
    const sources = (await db.select().from(requestSourceStats)).map((r) => r.sourceHash);
    expect(sources).toContain("h89");
    expect(sources).not.toContain("h92");
    const kept = (await db.select().from(requestStats)).map((r) => r.hour.getTime());
    expect(Math.min(...kept)).toBeGreaterThan(now - 90 * day);
    expect((await db.select().from(apiKeys).where(eq(apiKeys.id, expiring.id)))[0]!.expiredAt).not.toBeNull();
    expect((await db.select().from(usageFlushLedger)).map((r) => r.claim)).toContain("kept");
    // A second run finds nothing left to mark.
    expect((await (await call("daily-maintenance", `Bearer ${SECRET}`)).json()).parts.expiredKeys.result.marked).toBe(
      0,
    );
  });

  it("answers 500 naming the part that failed, after running the others", async () => {
    const logger = createTestLogger();
    const kv = createMemoryKeyValue();
    kv.scan = async () => {
      throw new Error("redis unreachable");
    };
    const cron = createCronJobs({
      db: app.services.database.db,
      kv,
      redis: null,
      auditRetentionDays: 365,
      invalidate: app.services.invalidate,
      logger,
      now: () => new Date(),
    });
    const response = await call("daily-maintenance", `Bearer ${SECRET}`, { jobs: { ...app.services.jobs, cron } });
    expect(response.status).toBe(500);
    const report = await response.json();
    expect(report.parts.flushUsage).toMatchObject({ ok: false, error: "redis unreachable" });
    expect(logger.lines.filter((line) => line.level === "error")).toEqual([
      expect.objectContaining({ message: "daily maintenance part failed", part: "flushUsage" }),
    ]);
    expect(report.parts.requestLogRetention.ok).toBe(true);
    expect(report.parts.ledgerPrune.ok).toBe(true);
    expect((await cronRunState(app.services.database.db, "daily-maintenance")).lastError).toMatch(/failed/);
  });
});

describe("a failed invalidation", () => {
  it("is logged and counted, never thrown, and leaves nothing to retry: the entry expires by itself", async () => {
    const kv = createMemoryKeyValue();
    await kv.set(redisKeys.apiKeyConfig("pk_stale"), "{}", { ttlSeconds: 60 });
    const refused = async () => Promise.reject(new Error("connection refused"));
    const broken = { ...kv, del: refused, set: refused };
    const lines: string[] = [];
    const counters = createCounters();
    const invalidate = createConfigInvalidator({
      l1: null,
      kv: broken,
      logger: createLogger("error", (line) => lines.push(line)),
      counters,
    });
    await expect(invalidate.apiKeys(["pk_stale"])).resolves.toBeUndefined();
    expect(counters.get("redis_failure_invalidation")).toBe(1);
    expect(lines.join("\n")).toMatch(
      /cache invalidation failed; other instances see the change when the entry expires/,
    );
    // The cached entry keeps the lifetime it was written with (at most 60 s): that is the bound.
    const ttl = await kv.ttl(redisKeys.apiKeyConfig("pk_stale"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
    // The daily maintenance has no retry part any more.
    const response = await call("daily-maintenance", `Bearer ${SECRET}`);
    expect(Object.keys((await response.json()).parts)).not.toContain("invalidationRetries");
  });
});

describe("flush route options", () => {
  it("flushes the current minute on request, and refuses a lag that is not a whole number of seconds", async () => {
    const handler = createCronRouteHandler(async () => app.services, "flush-usage-buffer");
    const ask = (query: string) =>
      handler(
        new Request(`http://optstuff.test/api/cron/flush-usage-buffer${query}`, {
          headers: { authorization: `Bearer ${SECRET}` },
        }),
      );
    for (const bad of ["-1", "1.5", "abc", "3601", ""]) {
      const response = await ask(`?safetyLagSeconds=${bad}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: "INVALID_INPUT",
        message: expect.stringContaining("safetyLagSeconds"),
      });
    }
    const response = await app.fetch(app.signedPath("w_99", `http://${origin.host}/a.png`));
    const bytes = (await response.arrayBuffer()).byteLength;
    await app.settled();
    expect(await (await ask("?safetyLagSeconds=0")).json()).toMatchObject({ ok: true, requests: 1, bytes });
  });
});

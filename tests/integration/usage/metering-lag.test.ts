import { afterAll, beforeAll, expect, it } from "vitest";
import { meteringDelayMs } from "@/server/cron/metering-freshness";
import { createCronJobs } from "@/server/cron/jobs";
import { defaultSchedule, msUntilFlush } from "@/server/cron/schedule";
import { defaultFlushOptions } from "@/server/usage/flush-usage-buffer";
import { createTestApp, testRedisSettings, type TestApp, redisSettings } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { startRealRedis, type RealRedis } from "../../support/redis";

/**
 * How long a served request takes to reach usage_record under the in-process schedule: the rest of its
 * minute, the safety lag, the wait for the next run. Requests go through the real route (into the
 * database buffer in process, or Redis), and the flush runs at the instants the schedule runs it.
 */
let app: TestApp;
let origin: Origin;
let redis: RealRedis | null = null;

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(32, 24), "image/png") });
  // A flush sweeps every bucket in its Redis: its own redis-server, never one shared with other files.
  redis = testRedisSettings() ? await startRealRedis() : null;
  app = await createTestApp({ sourceHosts: [origin.host], env: { ...redisSettings(redis?.settings ?? null) } });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await redis?.stop();
  await origin?.close();
});

it("meters a request at the first scheduled run after its minute and the lag, within the delay the usage page states", async () => {
  await clearOfWindowEdge(60_000, 10_000);
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  let bytes = 0;
  for (let i = 1; i <= 3; i++) {
    const response = await app.fetch(app.signedPath(`w_${10 + i}`, `http://${origin.host}/a.png`));
    expect(response.status).toBe(200);
    bytes += (await response.arrayBuffer()).byteLength;
  }
  await app.settled();
  const lastServed = Date.now();
  expect(lastServed).toBeLessThan(minute + 60_000);
  const { services } = app;
  const jobsAt = (at: number) =>
    createCronJobs({
      db: services.database.db,
      kv: services.coordination.kv,
      auditRetentionDays: 365,
      redis: services.coordination.redis,
      invalidate: services.invalidate,
      logger: app.log,
      now: () => new Date(at),
      schedule: () => defaultSchedule,
    });

  // A hair before the minute is past the safety lag, it waits.
  const early = await jobsAt(minute + 60_000 + defaultFlushOptions.safetyLagMs - 1).flushUsage();
  expect(early).toMatchObject({ ok: true, requests: 0 });
  expect(early.buckets.skippedRecent).toBeGreaterThanOrEqual(1);

  // The scheduler's first run after the minute ended takes it.
  const run = minute + 60_000 + msUntilFlush(new Date(minute + 60_000), defaultSchedule);
  const jobs = jobsAt(run);
  expect(await jobs.flushUsage()).toMatchObject({ ok: true, requests: 3, bytes });
  const delay = meteringDelayMs(defaultSchedule, defaultFlushOptions);
  expect(run - minute).toBeLessThanOrEqual(delay);
  expect(delay).toBe(66_000); // was up to 180 s: a 60 s lag, and runs every 60 s from whenever the process started

  const freshness = await jobs.freshness();
  expect(freshness.meteredUpTo!.getTime()).toBe(minute + 60_000);
  expect(freshness.meteredUpTo!.getTime()).toBeGreaterThan(lastServed);
  expect(freshness.appearsWithinSeconds).toBe(delay / 1000);
});

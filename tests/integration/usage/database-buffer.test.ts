import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCounters } from "@/server/coordination/counters";
import { minuteStamp } from "@/server/coordination/keys";
import { apiKeys, projects, requestLog, usageBuffer } from "@/server/db/schema";
import { flushUsageBuffer, type FlushOptions } from "@/server/usage/flush-usage-buffer";
import { createRequestLog } from "@/server/usage/request-log";
import { createUsageWorld, minutesBefore, type UsageWorld } from "../../support/usage-world";

/**
 * Without a shared Redis (the embedded default) usage is buffered in usage_buffer, written with the
 * request log and flushed in one transaction per batch with the ledger: the same exactly-once as the
 * Redis buckets, on PGlite and PostgreSQL.
 */
const options: FlushOptions = {
  safetyLagMs: 5_000,
  bucketsPerBatch: 2,
  releaseChunk: 1,
  lockTtlSeconds: 30,
  budgetMs: 60_000,
};

let world: UsageWorld;
const now = () => new Date();
const flush = (extra: Partial<Parameters<typeof flushUsageBuffer>[0]> = {}, more: Partial<FlushOptions> = {}) =>
  flushUsageBuffer({ kv: world.kv, db: world.db, now, ...extra }, { ...options, ...more });
const buffered = async (apiKeyId: string) =>
  world.db.select().from(usageBuffer).where(eq(usageBuffer.apiKeyId, apiKeyId));

beforeAll(async () => {
  world = await createUsageWorld("in-process");
}, 60_000);
afterAll(() => world?.close());

describe("usage buffered in the database", () => {
  it("applies the minutes past the safety lag once, keeps the current one, and says up to when it metered", async () => {
    const key = await world.newKey();
    const start = now(); // one instant: a minute turning mid-loop would merge two buckets
    for (let m = 2; m <= 6; m++) await world.serveInDatabase(key, minutesBefore(start, m), m, 10 * m);
    const ready = world.expected(key);
    const current = now();
    await world.serveInDatabase(key, current, 3, 7);

    const report = await flush();
    expect(report).toMatchObject({
      outcome: "flushed",
      requests: ready.requests,
      bytes: ready.bytes,
      droppedRequests: 0,
    });
    expect(report.buckets).toMatchObject({ applied: 5, skippedRecent: 1 });
    expect(await world.recorded(key)).toEqual(ready);
    expect((await buffered(key)).map((row) => row.bucket)).toEqual([minuteStamp(current)]);
    // Everything before the end of the newest minute past the lag.
    const upTo = new Date(report.meteredUpTo!).getTime();
    expect(upTo % 60_000).toBe(0);
    expect(upTo).toBeLessThanOrEqual(Date.now() - options.safetyLagMs);
    expect(upTo).toBeGreaterThan(Date.now() - options.safetyLagMs - 60_000 - 5_000);

    expect(await flush()).toMatchObject({ requests: 0, rows: 0 });
    await flush({ now: () => new Date(Date.now() + 2 * 60_000) });
    expect(await world.recorded(key)).toEqual(world.expected(key));
    expect(await buffered(key)).toEqual([]);
  });

  it.each([
    ["scanned", 0],
    ["claimed", 6 + 5],
    ["ledger-written", 6 + 5],
    ["committed", 6 + 5 + 4 + 3],
  ] as const)(
    "counts exactly once when a flush crashes at %s (%i requests applied) and a later one re-runs",
    async (step, appliedBeforeCrash) => {
      const key = await world.newKey();
      const start = now(); // one instant: a minute turning mid-loop would merge two buckets
      for (let m = 2; m <= 6; m++) await world.serveInDatabase(key, minutesBefore(start, m), m, 3 * m);
      // The second time: the Redis half scans first; the database half's batches are two minutes each,
      // so a crash in its second batch rolls that batch back and leaves the first applied.
      let reached = 0;
      const crash = async (at: string) => {
        if (at === step && ++reached === 2) throw new Error(`crash at ${step}`);
      };
      await expect(flush({ faults: crash })).rejects.toThrow(`crash at ${step}`);
      expect((await world.recorded(key)).requests).toBe(appliedBeforeCrash);
      // Late increments for the same minutes, before the re-run.
      await world.serveInDatabase(key, minutesBefore(now(), 3), 4, 11);
      await flush();
      expect(await world.recorded(key)).toEqual(world.expected(key));
      expect(await buffered(key)).toEqual([]);
    },
  );

  it("stands aside while another flush holds the lock, so concurrent flushes apply each minute once", async () => {
    const key = await world.newKey();
    const start = now(); // one instant: a minute turning mid-loop would merge two buckets
    for (let m = 2; m <= 9; m++) await world.serveInDatabase(key, minutesBefore(start, m), 10);
    const reports = await Promise.all(Array.from({ length: 5 }, () => flush()));
    expect(reports.filter((r) => r.outcome === "flushed")).toHaveLength(1);
    expect(reports.filter((r) => r.outcome === "locked").every((r) => r.meteredUpTo === null)).toBe(true);
    expect(await world.recorded(key)).toEqual(world.expected(key));
  });

  it("keeps increments that land in a minute while it is being flushed, and after it was applied", async () => {
    const key = await world.newKey();
    const minute = minutesBefore(now(), 4);
    await world.serveInDatabase(key, minute, 5, 20);
    let late: Promise<void> | undefined;
    // Not awaited inside the transaction: a writer waits for it (PGlite has one connection).
    await flush({ faults: (at) => void (at === "claimed" && (late ??= world.serveInDatabase(key, minute, 3, 20))) });
    await late;
    await flush();
    expect(await world.recorded(key)).toEqual(world.expected(key));
    await world.serveInDatabase(key, minute, 2, 20); // a straggler for a minute already applied
    await flush();
    expect(await world.recorded(key)).toEqual(world.expected(key));
  });

  it("leaves the minutes past its time budget for the next run, and meters only up to the first of them", async () => {
    const key = await world.newKey();
    const start = now(); // one instant: a minute turning mid-loop would merge two buckets
    for (let m = 2; m <= 6; m++) await world.serveInDatabase(key, minutesBefore(start, m), 2);
    const oldest = (await buffered(key)).map((row) => row.bucket).sort()[0];
    const spent = await flush({}, { budgetMs: -1 });
    expect(spent.buckets).toMatchObject({ applied: 0, deferred: 5 });
    expect(spent.meteredUpTo).toBe(new Date(spent.meteredUpTo!).toISOString());
    expect(minuteStamp(new Date(spent.meteredUpTo!))).toBe(oldest);
    expect(new Date(spent.meteredUpTo!).getUTCSeconds()).toBe(0);
    expect(await world.recorded(key)).toEqual({ requests: 0, bytes: 0 });
    expect((await flush()).buckets.deferred).toBe(0);
    expect(await world.recorded(key)).toEqual(world.expected(key));
  });

  it("drops usage of keys and projects deleted before or during the flush, and says how much", async () => {
    const kept = await world.newKey();
    const gone = await world.newKey();
    const [otherProject] = await world.db
      .insert(projects)
      .values({ teamId: (await world.db.select().from(projects))[0]!.teamId, name: "gone", slug: "gone-db" })
      .returning();
    const ofDeletedProject = await world.newKey(otherProject!.id);
    const minute = minutesBefore(now(), 3);
    await world.serveInDatabase(kept, minute, 4);
    await world.serveInDatabase(gone, minute, 6);
    await world.serveInDatabase(ofDeletedProject, minute, 3, 100, otherProject!.id);
    await world.db.delete(apiKeys).where(eq(apiKeys.id, gone));
    await world.db.delete(projects).where(eq(projects.id, otherProject!.id));
    const report = await flush();
    expect(report.droppedRequests).toBe(6 + 3);
    expect(await world.recorded(kept)).toEqual(world.expected(kept));
    expect(
      await world.db
        .select()
        .from(usageBuffer)
        .where(eq(usageBuffer.bucket, minuteStamp(minute))),
    ).toEqual([]);
  });
});

describe("the request log as the meter", () => {
  it("writes a batch's rows and its usage in one transaction, meters sampled-out successes, and keeps usage when the rows are refused", async () => {
    const key = await world.newKey();
    const counters = createCounters();
    let draws = 0;
    const log = createRequestLog(
      {
        db: world.db,
        kv: world.kv,
        counters,
        logSampled: () => {},
        random: () => (draws++ % 2) / 2,
        metersUsage: true,
      },
      {
        successSampleRate: 0.5,
        failuresPerProjectMinute: 10,
        successesPerProjectMinute: 1000,
        batchSize: 1000,
        batchWindowMs: 10,
      },
    );
    expect(log.metersUsage).toBe(true);
    const at = minutesBefore(now(), 2);
    const served = (i: number, projectId = world.projectId) =>
      ({
        requestId: `metered-${key}-${i}`,
        status: "success",
        httpStatus: 200,
        projectId,
        apiKeyId: key,
        sentBytes: 100 + i,
        durationMs: 2,
      }) as const;
    await Promise.all(Array.from({ length: 10 }, (_, i) => log.record(served(i), at)));
    await log.record({ ...served(10), status: "source_error", httpStatus: 502 }, at); // logged, not metered
    const rows = (await world.db.select().from(requestLog)).filter((r) => r.requestId.startsWith(`metered-${key}-`));
    expect(rows).toHaveLength(6); // half of the successes, and the failure
    expect(await buffered(key)).toMatchObject([{ bucket: minuteStamp(at), requests: 10, bytes: 10 * 100 + 45 }]);

    // A row for a project deleted meanwhile fails the batch's INSERT: it is written again without it.
    const [doomed] = await world.db
      .insert(projects)
      .values({ teamId: (await world.db.select().from(projects))[0]!.teamId, name: "doomed", slug: "doomed-db" })
      .returning();
    await world.db.delete(projects).where(eq(projects.id, doomed!.id));
    await Promise.all([
      log.record({ ...served(11), status: "source_error", httpStatus: 502, projectId: doomed!.id }, at),
      log.record(served(12), at),
    ]);
    expect(counters.get("request_log_rows_lost")).toBe(1); // the deleted project's row only
    expect(counters.get("usage_increment_lost")).toBe(0);
    expect((await buffered(key))[0]!.requests).toBe(11);
    await world.db.delete(usageBuffer).where(eq(usageBuffer.apiKeyId, key));
  });

  it("leaves metering to Redis when it does not meter", async () => {
    const log = createRequestLog({ db: world.db, kv: world.kv, counters: createCounters(), logSampled: () => {} });
    expect(log.metersUsage).toBe(false);
    const key = await world.newKey();
    await log.record(
      {
        requestId: "unmetered",
        status: "success",
        httpStatus: 200,
        projectId: world.projectId,
        apiKeyId: key,
        sentBytes: 5,
        durationMs: 1,
      },
      now(),
    );
    expect(await buffered(key)).toEqual([]);
  });
});

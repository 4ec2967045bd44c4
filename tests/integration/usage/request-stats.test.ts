import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveDateRange } from "@/server/analytics/date-range";
import { requestLogStats } from "@/server/analytics/request-log-stats";
import { savingsReport } from "@/server/analytics/savings";
import { createCounters } from "@/server/coordination/counters";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import { projects, requestLog, requestStats } from "@/server/db/schema";
import { createRequestLog, defaultRequestLogOptions } from "@/server/usage/request-log";
import { createTestApp, NO_REDIS, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

/**
 * Cache hits used to write a row each (one address at its cap: 1.7 M rows a day), and the usage page
 * scanned them. Rows are now capped per project-minute and the page reads per-hour statistics that
 * count every request exactly.
 */
let app: TestApp;
let origin: Origin;

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(40, 30), "image/png") });
  app = await createTestApp({
    sourceHosts: [origin.host],
    env: {
      ...NO_REDIS,
      OPTSTUFF_REQUEST_LOG_SUCCESSES_PER_MINUTE: "5",
      OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE: "2",
    },
  });
});
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const count = <T>(items: T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

describe("request statistics", () => {
  it("count every request exactly while the log keeps its capped rows", async () => {
    await clearOfWindowEdge(60_000, 15_000); // rows are capped per minute: all of this in one
    const path = app.signedPath("w_20,f_webp", `http://${origin.host}/a.png`);
    const first = await app.fetch(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    for (let i = 0; i < 39; i++) expect((await app.fetch(path)).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await app.fetch(path, { headers: { "if-none-match": etag } })).status).toBe(304);
    const forged = path.replace(/sig=[^&]+/, `sig=${"A".repeat(32)}`);
    for (let i = 0; i < 4; i++) expect((await app.fetch(forged)).status).toBe(403);
    await app.settled();

    const rows = await app.services.database.db
      .select()
      .from(requestLog)
      .where(eq(requestLog.projectId, app.projectId));
    expect(count(rows, (r) => r.status)).toEqual(
      new Map([
        ["success", 5],
        ["sig_invalid", 2],
      ]),
    );

    const outcomes = app.outcomes.filter((o) => o.projectId === app.projectId);
    expect(outcomes).toHaveLength(47);
    const stats = await requestLogStats(
      app.services.database.db,
      app.projectId,
      resolveDateRange({ preset: "7d" }, new Date()),
    );
    expect(stats.logged).toBe(47);
    expect(stats.statuses).toEqual([
      { status: "success", requests: 43 },
      { status: "sig_invalid", requests: 4 },
    ]);
    const tiers = count(
      outcomes.filter((o) => o.status === "success"),
      (o) => o.cache!,
    );
    expect(new Map(stats.tiers.map((t) => [t.tier, t.requests]))).toEqual(tiers);
    expect(tiers.get("revalidated")).toBe(3);
    const { topSources } = await savingsReport(
      app.services.database.db,
      { projectId: app.projectId },
      resolveDateRange({ preset: "7d" }, new Date()),
    );
    expect(topSources).toEqual([
      {
        sourceUrl: `http://${origin.host}/a.png`,
        requests: 43,
        outputBytes: outcomes.reduce((sum, o) => sum + (o.status === "success" ? (o.outputBytes ?? 0) : 0), 0),
      },
    ]);
    const successes = outcomes.filter((o) => o.status === "success");
    expect(stats.processing.averageMs).toBeCloseTo(
      successes.reduce((sum, o) => sum + Math.round(o.durationMs), 0) / successes.length,
      6,
    );
  });

  it("keeps the other projects' rows and statistics when a project of the batch was deleted", async () => {
    const db = app.services.database.db;
    const [doomed] = await db
      .insert(projects)
      .values({
        teamId: (await db.select().from(projects).where(eq(projects.id, app.projectId)))[0]!.teamId,
        name: "Doomed",
        slug: "doomed",
      })
      .returning({ id: projects.id });
    const log = createRequestLog(
      { db, kv: createMemoryKeyValue(), counters: createCounters(), logSampled: () => {} },
      { ...defaultRequestLogOptions, batchWindowMs: 60_000 },
    );
    const at = new Date("2026-02-03T04:05:06Z");
    const outcome = (projectId: string, i: number) =>
      log.record(
        {
          requestId: `gone-${projectId}-${i}`,
          status: "success",
          httpStatus: 200,
          projectId,
          cache: "hit",
          durationMs: 1,
        },
        at,
      );
    // Work done after an answer (the final AVIF after an interim one) is logged but is no request.
    const later = log.record(
      {
        requestId: `later-${app.projectId}`,
        status: "success",
        httpStatus: 200,
        projectId: app.projectId,
        cache: "later",
        durationMs: 900,
      },
      at,
    );
    const written = [...[0, 1, 2].map((i) => outcome(app.projectId, i)), outcome(doomed!.id, 0), later];
    await db.delete(projects).where(eq(projects.id, doomed!.id));
    await log.drain();
    await Promise.all(written);
    const rows = await db
      .select()
      .from(requestStats)
      .where(eq(requestStats.hour, new Date("2026-02-03T04:00:00Z")));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ projectId: app.projectId, requests: 3 });
    expect(
      (
        await db
          .select()
          .from(requestLog)
          .where(eq(requestLog.requestId, `later-${app.projectId}`))
      ).length,
    ).toBe(1);
    const logged = await db
      .select()
      .from(requestLog)
      .where(eq(requestLog.requestId, `gone-${app.projectId}-2`));
    expect(logged).toHaveLength(1);
  });

  it("adds two instances' counts for the same hour into one row", async () => {
    const db = app.services.database.db;
    const logs = [0, 1].map(() =>
      createRequestLog(
        { db, kv: createMemoryKeyValue(), counters: createCounters(), logSampled: () => {} },
        { ...defaultRequestLogOptions, batchSize: 7, batchWindowMs: 5 },
      ),
    );
    const at = new Date("2026-01-02T03:04:05Z");
    await Promise.all(
      logs.flatMap((log, n) =>
        Array.from({ length: 50 }, (_, i) =>
          log.record(
            {
              requestId: `two-${n}-${i}`,
              status: "success",
              httpStatus: 200,
              projectId: app.projectId,
              cache: "store",
              durationMs: i, // 0..49: 11 at ≤ 10 ms, 15 at ≤ 25, 24 at ≤ 50
            },
            at,
          ),
        ),
      ),
    );
    const rows = await db
      .select()
      .from(requestStats)
      .where(eq(requestStats.hour, new Date("2026-01-02T03:00:00Z")));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: "success",
      cache: "store",
      requests: 100,
      processingMs: 2 * ((49 * 50) / 2),
      le10: 22,
      le25: 30,
      le50: 48,
      le100: 0,
      over: 0,
    });
  });
});

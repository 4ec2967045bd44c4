import { and, eq, gte, lt, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestSourceStats, requestStats } from "@/server/db/schema";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { OTHER_SOURCES } from "@/server/usage/request-stats";
import {
  compactRequestStats,
  compactSourceStats,
  hourlyStatsSince,
  TOP_SOURCES_PER_DAY,
} from "@/server/usage/stats-compaction";
import { setupAudit } from "../../support/audit";
import { createTestDatabase } from "../../support/database";

/** Folding old hours into days and old days' small sources into one row keeps every total exact. */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let projectId: string;
const DAY = 86_400_000;
const now = new Date(Date.UTC(2026, 10, 28, 15, 30));
const midnight = (daysBack: number) => new Date(Date.UTC(2026, 10, 28) - daysBack * DAY);

beforeAll(async () => {
  database = await createTestDatabase();
  ({
    project: { id: projectId },
  } = await bootstrap(
    { db: database.db, secretBox: createSecretBox("k"), audit: setupAudit, now: () => new Date() },
    { teamSlug: "compact", projectSlug: "site", keyName: "k" },
  ));
});
afterAll(() => database?.close());

const totals = async () =>
  (
    await database.db
      .select({
        requests: sql<number>`sum(${requestStats.requests})::float8`,
        le10: sql<number>`sum(${requestStats.le10})::float8`,
        rows: sql<number>`count(*)::float8`,
      })
      .from(requestStats)
      .where(eq(requestStats.projectId, projectId))
  )[0]!;

describe("request_stats past the hourly week", () => {
  it("folds each day's hours into its midnight row, leaving the hourly week and every total as they were", async () => {
    // Two statuses, every hour of 20 days: requests = the hour of day + 1.
    const rows = [];
    for (let back = 0; back < 20; back++)
      for (let hour = 0; hour < 24; hour++)
        for (const status of ["success", "source_error"])
          rows.push({
            hour: new Date(midnight(back).getTime() + hour * 3_600_000),
            projectId,
            status,
            cache: status === "success" ? "hit" : "",
            requests: hour + 1,
            processingMs: 10,
            measuredRequests: 0,
            sourceBytes: 0,
            outputBytes: 0,
            le10: 1,
            le25: 0,
            le50: 0,
            le100: 0,
            le250: 0,
            le500: 0,
            le1000: 0,
            le2500: 0,
            le5000: 0,
            over: 0,
          });
    await database.db.insert(requestStats).values(rows);
    const before = await totals();

    const folded = await compactRequestStats(database.db, now);

    const after = await totals();
    expect(after.requests).toBe(before.requests);
    expect(after.le10).toBe(before.le10);
    // Days 8 to 14 back are folded (a week behind the window); the 8 newest keep their hours.
    expect(folded).toBe(7 * 2 * 23);
    expect(after.rows).toBe(before.rows - folded);
    const since = hourlyStatsSince(now);
    expect(since.toISOString()).toBe(midnight(7).toISOString());
    const day = await database.db
      .select({ hour: requestStats.hour, requests: requestStats.requests })
      .from(requestStats)
      .where(
        and(
          eq(requestStats.projectId, projectId),
          eq(requestStats.status, "success"),
          gte(requestStats.hour, midnight(9)),
          lt(requestStats.hour, midnight(8)),
        ),
      );
    expect(day).toEqual([{ hour: midnight(9), requests: (24 * 25) / 2 }]);
    // Run again: nothing left to fold.
    expect(await compactRequestStats(database.db, now)).toBe(0);
  });
});

describe("request_source_stats of finished days", () => {
  it("keeps the top sources by bytes of each day and folds the rest into one row, totals unchanged", async () => {
    const day = midnight(3).toISOString().slice(0, 10);
    const today = midnight(0).toISOString().slice(0, 10);
    const sources = (on: string) =>
      Array.from({ length: TOP_SOURCES_PER_DAY + 10 }, (_, i) => ({
        day: on,
        projectId,
        sourceHash: `hash-${i}`,
        sourceUrl: `local/${i}.jpg`,
        requests: 1,
        outputBytes: 1000 + i,
      }));
    await database.db.insert(requestSourceStats).values([...sources(day), ...sources(today)]);

    const folded = await compactSourceStats(database.db, now);

    expect(folded).toBe(10);
    const kept = await database.db
      .select({
        hash: requestSourceStats.sourceHash,
        bytes: requestSourceStats.outputBytes,
        requests: requestSourceStats.requests,
      })
      .from(requestSourceStats)
      .where(and(eq(requestSourceStats.projectId, projectId), eq(requestSourceStats.day, day)));
    expect(kept).toHaveLength(TOP_SOURCES_PER_DAY + 1);
    const other = kept.find((row) => row.hash === OTHER_SOURCES.hash)!;
    // The ten smallest (1000…1009 bytes) went into one row.
    expect(other).toEqual({ hash: OTHER_SOURCES.hash, bytes: 10 * 1000 + 45, requests: 10 });
    expect(kept.filter((row) => row.hash !== OTHER_SOURCES.hash).every((row) => row.bytes >= 1010)).toBe(true);
    // Today's sources are still being added to: left whole.
    const running = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(requestSourceStats)
      .where(eq(requestSourceStats.day, today));
    expect(running[0]!.n).toBe(TOP_SOURCES_PER_DAY + 10);
    expect(await compactSourceStats(database.db, now)).toBe(0);
  });
});

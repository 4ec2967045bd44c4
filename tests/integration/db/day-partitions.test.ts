import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import { DAY_PARTITIONED, retireDayPartitions } from "@/server/db/day-partitions";
import { rowsOf } from "@/server/db/rows-of";
import { requestLog, requestSourceStats, requestVariantDays } from "@/server/db/schema";
import { prepareDays, pruneRequestLog, pruneRequestStats, REQUEST_LOG_RETENTION_DAYS } from "@/server/usage/retention";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { createTestDatabase } from "../../support/database";
import { need } from "../../support/services";
import { buildTenantWorld } from "../../support/tenant-world";

/**
 * The request log and the daily statistics that grow with traffic are partitioned by UTC day:
 * retention drops whole days instead of deleting rows, rows for a day nobody prepared wait in the
 * default partition (never refused), and move to their day when it is prepared.
 */
const DAY = 86_400_000;
const onPostgres = need("postgresql");
// Days well before the real today, whose partitions opening the database did not prepare.
const MIDNIGHT = Math.floor(Date.now() / DAY) * DAY - 200 * DAY;
const now = new Date(MIDNIGHT + 12 * 3_600_000);
const cutoff = now.getTime() - REQUEST_LOG_RETENTION_DAYS * DAY;
const dayName = (at: number) => `request_log_${new Date(at).toISOString().slice(0, 10).replaceAll("-", "")}`;

let handle: Awaited<ReturnType<typeof createTestDatabase>>;
let app: TestApp;
let site: string;
let shop: string;
const db = (): Database => app.services.database.db;

beforeAll(async () => {
  handle = await createTestDatabase();
  app = await createTestApp({ env: NO_REDIS, database: handle });
  const world = await buildTenantWorld(app.services, "partitions");
  await world.owner.caller.project.create({
    teamSlug: world.teamSlug,
    name: "Shop",
    slug: "shop",
    allowedSourceHosts: [],
  });
  const id = async (projectSlug: string) =>
    (await world.owner.caller.project.get({ teamSlug: world.teamSlug, projectSlug })).project.id;
  [site, shop] = [await id("site"), await id("shop")];
});

afterAll(async () => {
  await app?.close();
  await handle?.close();
});

const row = (projectId: string, at: number, requestId: string = randomUUID()) => ({
  requestId,
  projectId,
  status: "success",
  httpStatus: 200,
  createdAt: new Date(at),
});

/** Where each row of the log is kept: its partition's name, by request id. */
async function placement(): Promise<Map<string, string>> {
  const rows = rowsOf<{ request_id: string; partition: string }>(
    await db().execute(sql`select request_id, tableoid::regclass::text as partition from request_log`),
  );
  return new Map(rows.map((r) => [r.request_id, r.partition]));
}

async function partitionsOf(table: string): Promise<string[]> {
  return rowsOf<{ name: string }>(
    await db().execute(sql`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ${table}::regclass order by 1`),
  ).map((r) => r.name);
}

describe("day partitions", () => {
  it("drops the days past the retention whole, deletes the default partition's strays in batches, keeps the rest", async () => {
    // A week of days around the cutoff, prepared as the maintenance of that time would have.
    const first = cutoff - 4.5 * DAY; // the day four before the cutoff's, at its midnight
    const created = await prepareDays(db(), new Date(first));
    const days = Array.from({ length: 8 }, (_, i) => first + i * DAY);
    expect(created).toEqual(expect.arrayContaining(days.map(dayName)));
    await db()
      .insert(requestLog)
      .values([
        ...days.map((at) => row(site, at + 12 * 3_600_000, `day-${(at - first) / DAY}`)),
        // The cutoff's own day is kept whole: this row is an hour older than the cutoff.
        row(site, cutoff - 3_600_000, "cutoff-day"),
        // Days nobody prepared: the default partition, seven of them past the retention.
        ...Array.from({ length: 7 }, (_, i) => row(shop, first - (i + 1) * 20 * DAY, `stray-${i}`)),
        row(shop, now.getTime() - 3 * DAY, "waiting"),
      ]);
    const before = await placement();
    expect(before.get("day-0")).toBe(dayName(first));
    expect(before.get("stray-0")).toBe("request_log_default");

    const retired = await retireDayPartitions(db(), DAY_PARTITIONED.requestLog, new Date(cutoff), { batchSize: 3 });
    expect(retired.dropped.sort()).toEqual(days.slice(0, 4).map(dayName));
    expect(retired.deleted).toBe(7);
    const after = await placement();
    expect([...after.keys()].filter((id) => before.has(id)).sort()).toEqual(
      ["cutoff-day", "day-4", "day-5", "day-6", "day-7", "waiting"].sort(),
    );
    for (const name of days.slice(0, 4).map(dayName)) expect(await partitionsOf("request_log")).not.toContain(name);
    // Twice: nothing left to drop or delete.
    expect(await pruneRequestLog(db(), now)).toEqual({ dropped: [], deleted: 0 });
  });

  it("moves rows waiting in the default partition into their day once it is prepared, and gives no passed day one", async () => {
    await db()
      .insert(requestLog)
      .values([row(shop, now.getTime() - 3 * DAY + 60_000, "waiting-2"), row(shop, cutoff - 60 * DAY, "passed")]);
    const ids = async () =>
      new Map(
        rowsOf<{ request_id: string; id: string }>(
          await db().execute(sql`select request_id, id::text from request_log`),
        ).map((r) => [r.request_id, r.id]),
      );
    const idsBefore = await ids();
    const created = await prepareDays(db(), now);
    const waitingDay = dayName(now.getTime() - 3 * DAY);
    expect(created).toContain(waitingDay);
    expect(created).not.toContain(dayName(cutoff - 60 * DAY));
    const after = await placement();
    expect(after.get("waiting")).toBe(waitingDay);
    expect(after.get("waiting-2")).toBe(waitingDay);
    expect(after.get("passed")).toBe("request_log_default");
    // Nothing lost, nothing renumbered.
    expect(await ids()).toEqual(idsBefore);
    // Prepared twice: nothing more to do.
    expect(await prepareDays(db(), now)).toEqual([]);
  });

  it("retires the per-source and per-variant days by partition too, beside the statistics kept by DELETE", async () => {
    const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
    const old = now.getTime() - 100 * DAY;
    await prepareDays(db(), new Date(old));
    const source = (at: number, variant: string) => ({
      projectId: site,
      day: dayOf(at),
      sourceHash: variant,
      sourceUrl: `local/${variant}.jpg`,
      requests: 1,
      outputBytes: 1,
    });
    await db()
      .insert(requestSourceStats)
      .values([source(old, "old"), source(now.getTime(), "new")]);
    await db()
      .insert(requestVariantDays)
      .values([
        { projectId: site, day: dayOf(old), variant: "old" },
        { projectId: site, day: dayOf(now.getTime()), variant: "new" },
      ]);
    const retired = await pruneRequestStats(db(), now);
    const oldDay = dayOf(old).replaceAll("-", "");
    expect(retired.dropped).toEqual(
      expect.arrayContaining([`request_source_stats_${oldDay}`, `request_variant_days_${oldDay}`]),
    );
    // Nothing waited in a default partition: no row was deleted one by one.
    expect(retired.deleted).toBe(0);
    const sources = await db().select({ hash: requestSourceStats.sourceHash }).from(requestSourceStats);
    expect(sources.map((r) => r.hash)).toEqual(["new"]);
    const variants = await db().select({ variant: requestVariantDays.variant }).from(requestVariantDays);
    expect(variants.map((r) => r.variant)).toEqual(["new"]);
  });

  // The embedded database has one connection: no read can hold a lock while another statement waits.
  it.skipIf(onPostgres.skip)(
    onPostgres.title(
      "gives up a drop that waits behind a long read after its lock timeout, drops the others and names it",
    ),
    async () => {
      const days = [now.getTime() - 80 * DAY, now.getTime() - 79 * DAY];
      await prepareDays(db(), new Date(days[0]!));
      await db()
        .insert(requestLog)
        .values(days.map((at) => row(site, at)));
      const reader = postgres(handle.url!, { max: 1, onnotice: () => {} });
      const reserved = await reader.reserve();
      try {
        await reserved`begin`;
        await reserved`select count(*) from ${reserved(dayName(days[0]!))}`;
        const attempt = retireDayPartitions(db(), DAY_PARTITIONED.requestLog, new Date(cutoff), { lockTimeoutMs: 200 });
        await expect(attempt).rejects.toThrow(new RegExp(`${dayName(days[0]!)}: .*lock timeout`));
        const left = await partitionsOf("request_log");
        expect(left).toContain(dayName(days[0]!));
        expect(left).not.toContain(dayName(days[1]!));
      } finally {
        await reserved`rollback`;
        reserved.release();
        await reader.end();
      }
      expect((await retireDayPartitions(db(), DAY_PARTITIONED.requestLog, new Date(cutoff))).dropped).toEqual([
        dayName(days[0]!),
      ]);
    },
  );
});

import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IMPACT_ROWS, newestServed } from "@/server/analytics/served-impact";
import { DASHBOARD_SCAN } from "@/server/db/newest-first-scan";
import { rowsOf } from "@/server/db/rows-of";
import { requestLog } from "@/server/db/schema";
import { vacuumAll } from "@/server/db/table-upkeep";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { testDatabaseKind } from "../../support/database";
import { fillRequestLog } from "../../support/filled-log";
import { buildTenantWorld } from "../../support/tenant-world";

/**
 * The embedded database runs no autovacuum: without the scheduler's upkeep its planner never has
 * statistics, and took a page of a day's request log (the usage page's first statement, LIMIT bound as
 * a parameter) for a sort of the whole range, 200 ms at the log's caps with every tenant waiting in
 * its one session. Tended, the page walks the index and stops; deleted rows are reclaimed.
 */
let app: TestApp;
let projectId: string;
const embedded = testDatabaseKind() === "pglite";
const ROWS = 86_400 + 172_800;
/**
 * The log ends just before today: its rows wait in the default partition, a table of 259,200 rows the
 * planner has never looked at. Ending now would split them between today's partition and the default by
 * the hour of the day, and without statistics the plan flips with the split (a walk of today's index at
 * 03:00 or 21:00 UTC, a sort at noon): the reproduction must not depend on the clock.
 */
const filledUntil = new Date(new Date().setUTCHours(0, 0, 0, 0) - 1);

beforeAll(async () => {
  app = await createTestApp({ env: NO_REDIS });
  const world = await buildTenantWorld(app.services, "upkeep");
  const project = await world.owner.caller.project.get({ teamSlug: world.teamSlug, projectSlug: world.projectSlug });
  projectId = project.project.id;
  // On PostgreSQL the test, not autovacuum's timer, decides when the log has statistics.
  // The log is partitioned by day: the setting is each partition's.
  if (!embedded) {
    const leaves = rowsOf<{ name: string }>(
      await app.services.database.db.execute(
        sql`select relid::regclass::text as name from pg_partition_tree('request_log') where isleaf`,
      ),
    );
    for (const { name } of leaves) {
      await app.services.database.db.execute(sql`alter table ${sql.identifier(name)} set (autovacuum_enabled = off)`);
    }
  }
  await fillRequestLog(app.services.database.db, projectId, {
    failures: 86_400,
    successes: 172_800,
    newest: filledUntil,
    everyMs: 333,
    source: `local/${"a".repeat(250)}`,
  });
}, 120_000);

afterAll(() => app?.close());

const db = () => app.services.database.db;

/**
 * The most rows any step of a newest-first page over the filled rows touched, as request-log-page.ts
 * asks for it (EXPLAIN ANALYZE): a walk that stops at the page, or a sort of the range.
 */
async function rowsTouchedByPage(): Promise<number> {
  const to = new Date(filledUntil.getTime() + 1);
  const from = new Date(to.getTime() - 86_400_000);
  return rowsTouched(
    db()
      .select({
        id: requestLog.id,
        createdAt: requestLog.createdAt,
        sourceUrl: requestLog.sourceUrl,
        status: requestLog.status,
      })
      .from(requestLog)
      .where(and(eq(requestLog.projectId, projectId), gte(requestLog.createdAt, from), lt(requestLog.createdAt, to)))
      .orderBy(desc(requestLog.createdAt), desc(requestLog.id))
      .limit(DASHBOARD_SCAN.chunk),
  );
}

/** The most rows any step of `query` read, kept or filtered out (EXPLAIN ANALYZE). */
async function rowsTouched(query: { getSQL(): SQL }): Promise<number> {
  const [row] = rowsOf<Record<string, unknown>>(
    await db().execute(sql`explain (analyze, format json) ${query.getSQL()}`),
  );
  const cell = Object.values(row!)[0];
  const [explained] = (typeof cell === "string" ? JSON.parse(cell) : cell) as Array<{ Plan: PlanNode }>;
  const read = (node: PlanNode) => node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0);
  const most = (node: PlanNode): number => Math.max(read(node), ...(node.Plans ?? []).map(most));
  return most(explained!.Plan);
}

interface PlanNode {
  "Actual Rows": number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

interface Counters {
  changed: number;
}

/**
 * The partitions holding the log's rows (db/day-partitions.ts): the default one, for the days nobody
 * prepared. Each is a table of its own to the upkeep; the parent is none.
 */
async function logPartitions(): Promise<string[]> {
  return rowsOf<{ name: string }>(
    await db().execute(sql`select distinct tableoid::regclass::text as name from request_log order by 1`),
  ).map((r) => r.name);
}

/** The log's counters, over its partitions, once they show `ready` (published a second or so late). */
async function countersWhen(ready: (counters: Counters) => boolean): Promise<Counters> {
  for (let tries = 0; ; tries++) {
    const [counters] = rowsOf<Counters>(
      await db().execute(sql`
        select sum(n_mod_since_analyze)::float8 as changed from pg_stat_user_tables
        where relid in (select relid from pg_partition_tree('request_log') where isleaf)`),
    );
    if (counters && ready(counters)) return counters;
    if (tries > 120) throw new Error(`request_log's counters never got there: ${JSON.stringify(counters)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("table upkeep where the database keeps no statistics of its own", () => {
  it("turns a page of the request log from a sort of the range into a walk of its index once statistics are gathered", async () => {
    // Reproduced: without statistics the first page of a day read every row of the day (PostgreSQL too,
    // until its autovacuum has looked, within a minute).
    expect(await rowsTouchedByPage()).toBeGreaterThan(100 * DASHBOARD_SCAN.chunk);
    const report = await (async () => {
      if (!embedded) return app.services.jobs.cron.tendTables();
      await countersWhen((c) => c.changed >= ROWS);
      return app.services.jobs.cron.tendTables();
    })();
    if (embedded) expect(report.analyzed).toEqual(expect.arrayContaining(await logPartitions()));
    else {
      // PostgreSQL's own autovacuum gathers them (held off here); the scheduler leaves its tables alone.
      expect(report).toMatchObject({ ok: true, analyzed: [], vacuumed: [] });
      await db().execute(sql`analyze request_log`);
    }
    // An index walk that stops at the page (the planner may finish the order on a few more rows).
    expect(await rowsTouchedByPage()).toBeLessThanOrEqual(2 * DASHBOARD_SCAN.chunk);
    // Twice: nothing changed since, nothing to do.
    const again = await app.services.jobs.cron.tendTables();
    expect([...again.analyzed, ...again.vacuumed].filter((name) => name.startsWith("request_log"))).toEqual([]);
  });

  it("reads a project's newest successes off its own index, not past the failures newer than them", async () => {
    await db().execute(sql`analyze request_log`);
    // The presets-only impact's sample: a day of failures is newer than every success.
    const sample = newestServed(db(), projectId, new Date());
    expect(await rowsTouched(sample)).toBeLessThanOrEqual(IMPACT_ROWS + 1);
  });

  it("reclaims the rows retention deleted, on either database when asked directly: the file does not grow", async () => {
    const heapBytes = async () =>
      rowsOf<{ bytes: number }>(
        await db().execute(
          sql`select sum(pg_relation_size(relid))::float8 as bytes from pg_partition_tree('request_log')`,
        ),
      )[0]!.bytes;
    const [{ n }] = rowsOf<{ n: number }>(
      await db().execute(sql`
        with gone as (delete from request_log where project_id = ${projectId} and id % 2 = 0 returning 1)
        select count(*)::int as n from gone`),
    ) as [{ n: number }];
    const before = await heapBytes();
    const report = await vacuumAll(db());
    expect(report.ok).toBe(true);
    expect(report.vacuumed).toEqual(expect.arrayContaining(await logPartitions()));
    // The parent holds no rows: vacuuming it would go through every partition again.
    expect(report.vacuumed).not.toContain("request_log");
    // As many rows again, over the same hours (so into the same partitions): they fit in the space the
    // deleted ones left (without the vacuum, +50 %).
    await fillRequestLog(db(), projectId, {
      failures: 0,
      successes: n,
      newest: filledUntil,
      everyMs: 666,
      source: `local/${"a".repeat(250)}`,
    });
    expect(await heapBytes()).toBeLessThan(before * 1.05);
  });

  it("vacuums every table after the daily maintenance's deletions on the embedded database, never on PostgreSQL", async () => {
    const report = await app.services.jobs.cron.dailyMaintenance();
    if (!embedded) {
      expect(report.parts.vacuum).toBeUndefined();
      return;
    }
    expect(report.parts.vacuum).toMatchObject({
      ok: true,
      result: {
        ok: true,
        failed: {},
        vacuumed: expect.arrayContaining([...(await logPartitions()), "audit_log", "projects"]),
      },
    });
  });
});

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboardReads, directReads } from "@/server/db/dashboard-reads";
import { rowsOf } from "@/server/db/rows-of";
import { TRPCError } from "@trpc/server";
import { AppError } from "@/server/errors";
import { createTestApp, NO_REDIS } from "../../support/app";
import { callerFor } from "../../support/dashboard";
import { fillStatistics } from "../../support/filled-log";
import { buildTenantWorld } from "../../support/tenant-world";
import { createTestDatabase, testDatabaseKind } from "../../support/database";
import { need } from "../../support/services";

/**
 * On PostgreSQL a dashboard read has a time limit the server enforces, and stops when its client goes:
 * the last line of defence behind the bounds each read has by construction.
 */
const postgres = need("postgresql");
let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  if (postgres.skip) return;
  database = await createTestDatabase();
});
afterAll(() => database?.close());

const running = async () =>
  rowsOf<{ n: number }>(
    await database.db.execute(
      sql`select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep%' and state = 'active'`,
    ),
  )[0]!.n;

const codeOf = (error: unknown) => (error instanceof AppError ? error.code : String(error));

describe.skipIf(postgres.skip)(postgres.title("dashboard reads on PostgreSQL"), () => {
  it("stops a statement past its time limit with READ_TIMED_OUT, in a read-only transaction", async () => {
    expect(testDatabaseKind()).toBe("postgres");
    const reads = createDashboardReads(database, 300);
    const started = performance.now();
    const error = await reads.run((db) => db.execute(sql`select pg_sleep(5)`)).catch((e: unknown) => e);
    expect(codeOf(error)).toBe("READ_TIMED_OUT");
    expect(performance.now() - started).toBeLessThan(4000);
    expect(await running()).toBe(0);
    const write = await reads
      .run((db) => db.execute(sql`create table dashboard_reads_probe (x int)`))
      .catch((e: unknown) => e);
    expect(String((write as Error).cause ?? write)).toMatch(/read-only/);
  });

  it("cancels the statement when its client goes away, and says so", async () => {
    const reads = createDashboardReads(database, 30_000);
    const gone = new AbortController();
    const reading = reads.run((db) => db.execute(sql`select pg_sleep(20)`), gone.signal).catch((e: unknown) => e);
    await expect.poll(running, { timeout: 5000 }).toBe(1);
    gone.abort();
    expect(codeOf(await reading)).toBe("CLIENT_GONE");
    expect(await running()).toBe(0);
  });

  it("leaves the statement's limit to the read: the session's other statements have none", async () => {
    const reads = createDashboardReads(database, 300);
    await reads.run((db) => db.execute(sql`select 1`));
    const [setting] = rowsOf<{ statement_timeout: string }>(await database.db.execute(sql`show statement_timeout`));
    expect(setting!.statement_timeout).toBe("0");
  });
});

describe.skipIf(postgres.skip)(postgres.title("a dashboard read past its time, through the procedures"), () => {
  it("answers 503 READ_TIMED_OUT, not a 500, and holds no connection after", async () => {
    const app = await createTestApp({ env: NO_REDIS });
    try {
      const world = await buildTenantWorld(app.services, "slow");
      const { project } = await world.owner.caller.project.get({ teamSlug: world.teamSlug, projectSlug: "site" });
      await fillStatistics(app.services.database.db, project.id, {
        sourcesToday: 10,
        variantsPerDay: 0,
        variantDays: 0,
      });
      app.services.dashboard.dashboardReads = createDashboardReads(app.services.database, 1);
      const caller = await callerFor(app.services, world.member.cookie);
      const error = await caller.usage
        .project({ teamSlug: world.teamSlug, projectSlug: "site", range: { preset: "90d" } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("SERVICE_UNAVAILABLE");
      expect(((error as TRPCError).cause as AppError).code).toBe("READ_TIMED_OUT");
      // The next read, with the time it needs, is answered.
      app.services.dashboard.dashboardReads = createDashboardReads(app.services.database);
      const again = await callerFor(app.services, world.member.cookie);
      expect(
        (await again.usage.project({ teamSlug: world.teamSlug, projectSlug: "site", range: { preset: "7d" } })).outcomes
          .totals.all,
      ).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});

describe("dashboard reads on the embedded database", () => {
  it("run on the database as it is: its reads are bounded by construction, statement by statement", async () => {
    const reads = createDashboardReads({ kind: "pglite", db: "the db" as never });
    expect(await reads.run(async (db) => db)).toBe("the db");
    expect(await directReads("x" as never).run(async (db) => db)).toBe("x");
  });
});

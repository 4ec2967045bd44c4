/**
 * npm run bench:dashboard-reads — the worst read a member can shape, one at a time, over a tenant whose
 * logs and statistics are filled to their caps (issue 47): a day of the request log at both caps
 * (86,400 failures and 172,800 successes; BENCH_LOG_DAYS for more), ten projects' statistics over 90
 * days as full as they get (one with its variants at the day's allowance), a week of scripted audit
 * entries (100,000). Each read is timed, and a probe (`select 1`, as another tenant's lookup) asks the
 * database every 2 ms meanwhile: its slowest answer is what the read made everyone else wait. On the
 * embedded database (PGlite in process) and PostgreSQL 15. Targets: every read ≤ 1 s, the probe's
 * slowest ≤ 200 ms. After the fill each day gets its partition (db/day-partitions.ts) and the
 * planner's statistics are gathered, as PostgreSQL's autovacuum and the embedded database's table
 * upkeep (db/table-upkeep.ts) do within a minute of such a change;
 * BENCH_STATISTICS=none reads without them, as the embedded database did before it had that upkeep.
 * Results: a table on stdout (worst read named) and artifacts/bench-dashboard-reads.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { resolveDateRange } from "@/server/analytics/date-range";
import { presetsOnlyImpact } from "@/server/analytics/presets-only-impact";
import { requestLogPage } from "@/server/analytics/request-log-page";
import { usageCsvPages } from "@/server/analytics/usage-export";
import { projectUsageReport, teamUsageReport } from "@/server/analytics/usage-report";
import { auditCsvPages } from "@/server/audit/audit-export";
import { auditActors } from "@/server/audit/audit-actors";
import { listAuditEntries } from "@/server/audit/audit-log";
import { createDashboardReads } from "@/server/db/dashboard-reads";
import { projects } from "@/server/db/schema";
import type { Services } from "@/server/services";
import { VARIANTS_PER_PROJECT_DAY } from "@/server/usage/request-stats";
import { prepareDays } from "@/server/usage/retention";
import { fillAuditLog, fillRequestLog, fillStatistics } from "../tests/support/filled-log";
import { onBothDatabases } from "./lib/both-databases";
import { benchProject, sourceRootWithDot } from "./lib/in-process";
import { fmt } from "./lib/load";
import { withProbe } from "./lib/probe";

const LOG_DAYS = Number(process.env.BENCH_LOG_DAYS ?? 1);
const STATISTICS = process.env.BENCH_STATISTICS !== "none";

interface Row {
  database: string;
  read: string;
  ms: number;
  probeMaxMs: number;
}

async function measure(services: Services, database: string): Promise<Row[]> {
  const db = services.database.db;
  const reads = createDashboardReads(services.database);
  const { project, team } = await benchProject(services, "filled");
  const filled = performance.now();
  await fillRequestLog(db, project.id, {
    failures: 86_400 * LOG_DAYS,
    successes: 172_800 * LOG_DAYS,
    newest: new Date(),
    everyMs: 333,
    source: `local/${"a".repeat(250)}`,
  });
  await fillStatistics(db, project.id, {
    sourcesToday: 1000,
    variantsPerDay: VARIANTS_PER_PROJECT_DAY,
    variantDays: 30,
  });
  for (let i = 1; i < 10; i++) {
    const [other] = await db
      .insert(projects)
      .values({ teamId: team.id, name: `Filler ${i}`, slug: `filler-${i}` })
      .returning();
    await fillStatistics(db, other!.id, { sourcesToday: 1000, variantsPerDay: 0, variantDays: 0 });
  }
  await fillAuditLog(db, team.id, "bench-script", 100_000, 6000);
  // Each past day of the log and of the per-source statistics in its own partition, as a running
  // instance has them (the fill wrote them into the default partition): a 90-day read spans 91.
  await prepareDays(db, new Date());
  console.log(`${database}: filled in ${fmt((performance.now() - filled) / 1000, 1)} s`);
  if (STATISTICS) await db.execute(sql`analyze`);

  const now = () => new Date();
  const deps = { db, now, freshness: async () => ({}) as never, store: null };
  const today = now().toISOString().slice(0, 10);
  const range = resolveDateRange({ from: today, to: today }, now());
  const drain = async (pages: AsyncIterable<unknown>) => {
    for await (const page of pages) void page;
  };
  const cases: Array<[string, () => Promise<unknown>]> = [
    [
      "request log, 64-character text in sources",
      () => reads.run((rdb) => requestLogPage(rdb, project.id, range, { source: `${"a".repeat(63)}b`, limit: 25 })),
    ],
    [
      "request log, a whole 2,048-byte source",
      () =>
        reads.run((rdb) => requestLogPage(rdb, project.id, range, { source: `local/${"a".repeat(2041)}b`, limit: 25 })),
    ],
    [
      "request log, a status nobody has",
      () => reads.run((rdb) => requestLogPage(rdb, project.id, range, { status: "timeout", limit: 100 })),
    ],
    ["presets-only impact", () => reads.run((rdb) => presetsOnlyImpact(rdb, project.id))],
    [
      "project usage, 90 days",
      () => reads.run((rdb) => projectUsageReport({ ...deps, db: rdb }, project.id, { preset: "90d" })),
    ],
    [
      "team usage (10 projects), 90 days",
      () => reads.run((rdb) => teamUsageReport({ ...deps, db: rdb }, team.id, { preset: "90d" })),
    ],
    [
      "team usage (10 projects), 7 days",
      () => reads.run((rdb) => teamUsageReport({ ...deps, db: rdb }, team.id, { preset: "7d" })),
    ],
    [
      "audit log, 64-character target text",
      () =>
        reads.run((rdb) =>
          listAuditEntries({ db: rdb, now }, { teamId: team.id }, { target: `${"a".repeat(63)}b`, limit: 50 }),
        ),
    ],
    ["audit log's actors", () => reads.run((rdb) => auditActors({ db: rdb, now }, { teamId: team.id }))],
    [
      "audit CSV, a year, target text (whole file)",
      () =>
        drain(
          auditCsvPages(
            { now, read: (fn) => reads.run(fn) },
            { teamId: team.id },
            { target: `${"a".repeat(63)}b`, from: dayBefore(365), to: today },
          ),
        ),
    ],
    [
      "usage CSV, a year (whole file)",
      () =>
        drain(
          usageCsvPages(
            (fn) => reads.run(fn),
            { teamId: team.id },
            resolveDateRange({ from: dayBefore(365), to: today }, now(), 366),
            dayBefore(90),
          ),
        ),
    ],
  ];
  const rows: Row[] = [];
  for (const [read, run] of cases) {
    await run(); // warm
    const { ms, probeMaxMs } = await withProbe(db, run);
    rows.push({ database, read, ms, probeMaxMs });
  }
  return rows;
}

const dayBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

async function main(): Promise<void> {
  const root = await sourceRootWithDot(8, "#0a0");
  const rows = (await onBothDatabases(root, measure)).flat();
  console.log("\n| database | read | ms | another query's longest wait ms | within targets |");
  console.log("|---|---|---|---|---|");
  for (const row of rows)
    console.log(
      `| ${row.database} | ${row.read} | ${fmt(row.ms, 0)} | ${fmt(row.probeMaxMs, 0)} | ${(row.read.includes("whole file") || row.ms <= 1000) && row.probeMaxMs <= 200 ? "yes" : "NO"} |`,
    );
  const worst = rows.reduce((a, b) => (b.probeMaxMs > a.probeMaxMs ? b : a));
  console.log(`\nworst wait: ${worst.read} on ${worst.database}, ${fmt(worst.probeMaxMs, 0)} ms`);
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-dashboard-reads.json", JSON.stringify(rows, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * npm run bench:retention — what retiring one day of a busy project's request log costs, and what it
 * makes everyone else wait, on the embedded database (PGlite in process) and PostgreSQL 15. A day at
 * both row caps (86,400 failures and 172,800 successes) past the retention, beside a day that stays:
 * - before (deleted rows): the log as one table, the day deleted 10,000 rows at a time down the
 *   project's index as retention did, then vacuumed (the embedded database's daily upkeep; PostgreSQL's
 *   autovacuum does the same work later, in the background);
 * - after (day partitions): the day's partition dropped (db/day-partitions.ts).
 * A probe (`select 1`, as another tenant's lookup) asks every 2 ms meanwhile; its slowest answer is the
 * wait. Then the upgrade, on PostgreSQL: migration 0022 over a log of BENCH_UPGRADE_ROWS rows (default
 * 2,000,000, a week of one busy project at the caps) made by the release before; the log's writes wait
 * for it. Results: tables on stdout and artifacts/bench-retention.json.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { sql, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import type { Database } from "@/server/db/client";
import { DAY_PARTITIONED, prepareDayPartitions, retireDayPartitions } from "@/server/db/day-partitions";
import { migrationsFolder } from "@/server/db/migrations";
import { rowsOf } from "@/server/db/rows-of";
import type { Services } from "@/server/services";
import { onBothDatabases } from "./lib/both-databases";
import { benchProject, sourceRootWithDot } from "./lib/in-process";
import { fmt } from "./lib/load";
import { withProbe } from "./lib/probe";
import { startPostgres } from "./lib/postgres";
import { migrationsBefore } from "../tests/support/migrations";

const DAY = 86_400_000;
const ROWS_A_DAY = 86_400 + 172_800;
const BATCH = 10_000;

interface Row {
  database: string;
  way: string;
  rows: number;
  ms: number;
  probeMaxMs: number;
  /** What the log's files hold after (bytes): a table deleted from keeps its pages until they are reused. */
  bytesAfter: number;
}

/** A day of the log at its caps, ending at `end`, into `table`: one statement, as fillRequestLog writes. */
function fillDay(table: string, projectId: string, end: Date): SQL {
  return sql`
    insert into ${sql.identifier(table)} (request_id, project_id, status, http_status, source_url, source_hash,
      operations, output_format, output_bytes, processing_ms, cache, weight, created_at)
    select gen_random_uuid()::text, ${projectId}::uuid, case when i <= 86400 then 'source_error' else 'success' end,
      case when i <= 86400 then 404 else 200 end, 'local/photo.jpg', 'h', 'w_' || (i % 8192 + 1), 'webp', 1000, 12,
      'miss', 1, ${end.toISOString()}::timestamptz - make_interval(secs => i * ${DAY / 1000 / ROWS_A_DAY}::float8)
    from generate_series(1, ${ROWS_A_DAY}) as i`;
}

/** The files of a table, or of every partition of a partitioned one, indexes included. */
async function bytesOf(db: Database, table: string): Promise<number> {
  return rowsOf<{ bytes: number }>(
    await db.execute(sql`
      select coalesce(
        (select sum(pg_total_relation_size(relid)) from pg_partition_tree(${table}) where isleaf),
        pg_total_relation_size(${table}))::float8 as bytes`),
  )[0]!.bytes;
}

async function measure(services: Services, database: string): Promise<Row[]> {
  const db = services.database.db;
  const embedded = services.database.kind === "pglite";
  const projectId = (await benchProject(services, "retention")).project.id;
  const now = new Date();
  const old = new Date(Math.floor(now.getTime() / DAY) * DAY - 40 * DAY);
  const kept = new Date(old.getTime() + 15 * DAY);
  const cutoff = new Date(old.getTime() + 10 * DAY);
  const rows: Row[] = [];

  // Before: one table, as the log was.
  await db.execute(sql`create table request_log_plain (like request_log including defaults including indexes)`);
  await db.execute(fillDay("request_log_plain", projectId, old));
  await db.execute(fillDay("request_log_plain", projectId, kept));
  await db.execute(sql`vacuum (analyze) request_log_plain`);
  const deleted = await withProbe(db, async () => {
    for (;;) {
      const [{ n }] = rowsOf<{ n: number }>(
        await db.execute(sql`
          with gone as (
            delete from request_log_plain where id in (
              select id from request_log_plain where project_id = ${projectId} and created_at < ${cutoff.toISOString()}::timestamptz
              limit ${BATCH})
            returning 1)
          select count(*)::int as n from gone`),
      ) as [{ n: number }];
      if (n < BATCH) break;
      // Other sessions' statements run between two batches, as the embedded database's session queue
      // lets them: the probe then measures the longest statement, not the whole loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (embedded) await db.execute(sql`vacuum (analyze) request_log_plain`);
  });
  rows.push({
    database,
    way: `before: DELETE in batches of ${BATCH}${embedded ? " + VACUUM" : " (autovacuum later)"}`,
    rows: ROWS_A_DAY,
    ...deleted,
    bytesAfter: await bytesOf(db, "request_log_plain"),
  });
  await db.execute(sql`drop table request_log_plain`);

  // After: day partitions.
  await prepareDayPartitions(db, new Date(old.getTime() - DAY), 0);
  await prepareDayPartitions(db, new Date(kept.getTime() - DAY), 0);
  await db.execute(fillDay("request_log", projectId, old));
  await db.execute(fillDay("request_log", projectId, kept));
  await db.execute(sql`analyze request_log`);
  const before = await bytesOf(db, "request_log");
  let dropped: string[] = [];
  const drop = await withProbe(db, async () => {
    ({ dropped } = await retireDayPartitions(db, DAY_PARTITIONED.requestLog, cutoff));
  });
  rows.push({
    database,
    way: `after: DROP ${dropped.join(", ")}`,
    rows: ROWS_A_DAY,
    ...drop,
    bytesAfter: await bytesOf(db, "request_log"),
  });
  console.error(`${database}: log ${fmt(before / 1e6, 0)} MB before the drop`);
  return rows;
}

const UPGRADE_ROWS = Number(process.env.BENCH_UPGRADE_ROWS ?? 2_000_000);

/** Seconds migration 0022 takes over a log of UPGRADE_ROWS rows on PostgreSQL, and its rows after. */
async function measureUpgrade(): Promise<{ rows: number; seconds: number; partitions: string[] }> {
  const server = await startPostgres();
  const name = `optstuff_upgrade_${Date.now()}`;
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  const folder = migrationsBefore("0022_request_log_by_day");
  try {
    await admin.unsafe(`create database ${name}`);
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle(client), { migrationsFolder: folder });
      // Rows of a project the bench does not build: the foreign keys are not what is measured.
      await client.unsafe(`set session_replication_role = replica`);
      await client.unsafe(`
        insert into request_log (request_id, project_id, status, http_status, source_url, source_hash, operations,
          output_format, output_bytes, processing_ms, cache, weight, created_at)
        select gen_random_uuid()::text, '00000000-0000-4000-8000-000000000001', 'success', 200, 'local/photo.jpg', 'h',
          'w_' || (i % 8192 + 1), 'webp', 1000, 12, 'miss', 1, now() - make_interval(secs => i * 0.333)
        from generate_series(1, ${UPGRADE_ROWS}) as i`);
      await client.unsafe(`set session_replication_role = origin`);
      await client.unsafe(`vacuum analyze request_log`);
      const started = performance.now();
      await migrate(drizzle(client), { migrationsFolder: migrationsFolder() });
      const seconds = (performance.now() - started) / 1000;
      const partitions = (
        await client.unsafe<{ name: string; rows: number }[]>(
          `select tableoid::regclass::text as name, count(*)::int as rows from request_log group by 1 order by 1`,
        )
      ).map((r) => `${r.name} (${r.rows.toLocaleString("en")} rows)`);
      return { rows: UPGRADE_ROWS, seconds, partitions };
    } finally {
      await client.end();
    }
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    rmSync(folder, { recursive: true, force: true });
    await server.stop();
  }
}

async function main(): Promise<void> {
  const root = await sourceRootWithDot(8, "#0a0");
  const rows = (await onBothDatabases(root, measure)).flat();
  console.log(
    "\n| database | retiring a day at the caps | rows | ms | another query's longest wait ms | log's files after MB |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const row of rows)
    console.log(
      `| ${row.database} | ${row.way} | ${row.rows.toLocaleString("en")} | ${fmt(row.ms, 0)} | ${fmt(row.probeMaxMs, 0)} | ${fmt(row.bytesAfter / 1e6, 0)} |`,
    );
  const worst = rows.reduce((a, b) => (b.probeMaxMs > a.probeMaxMs ? b : a));
  console.log(`\nworst wait: ${worst.way} on ${worst.database}, ${fmt(worst.probeMaxMs, 0)} ms`);
  const upgrade = await measureUpgrade();
  console.log(
    `\nupgrade (migration 0022, PostgreSQL 15): ${upgrade.rows.toLocaleString("en")} rows in ${fmt(upgrade.seconds, 1)} s, the log's writes waiting; after: ${upgrade.partitions.join(", ")}`,
  );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-retention.json", JSON.stringify({ rows, upgrade }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

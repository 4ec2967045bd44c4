import { rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import { DAYS_AHEAD, prepareDayPartitions } from "@/server/db/day-partitions";
import { migrationsFolder } from "@/server/db/migrations";
import { pruneRequestLog, pruneRequestStats } from "@/server/usage/retention";
import { migrationsBefore } from "../../support/migrations";

/**
 * A database with a request log from before partitioning keeps every row through the upgrade: the
 * table as it was becomes the first partition (its indexes attached, not built again), ids go on from
 * its sequence, and retention deletes its expired rows until the whole of it can be dropped.
 */
const DAY = 86_400_000;
const HOUR = 3_600_000;
const PARTITIONING = "0022_request_log_by_day";
const now = new Date();
const dayAfter = (time: number) => new Date(time + DAY).toISOString().slice(0, 10).replaceAll("-", "");
const tomorrow = dayAfter(now.getTime());
// The old log's newest row is an hour before the test's clock: in the first hour of a UTC day it is
// yesterday's, and the first partition ends where that day does.
const logBound = dayAfter(now.getTime() - HOUR);
const today = `'${now.toISOString().slice(0, 10)}'::date`;

let folder: string;
let db: Database;
let run: (statement: string) => Promise<Record<string, unknown>[]>;
let close: () => Promise<void>;
/** Applies every committed migration, as opening the database does. */
let upgrade: () => Promise<void>;

beforeAll(async () => {
  folder = migrationsBefore(PARTITIONING);
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const client = new PGlite();
    db = drizzle(client) as unknown as Database;
    await migrate(drizzle(client), { migrationsFolder: folder });
    upgrade = () => migrate(drizzle(client), { migrationsFolder: migrationsFolder() });
    run = async (statement) => (await client.query<Record<string, unknown>>(statement)).rows;
    close = () => client.close();
  } else {
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    const name = `optstuff_upgrade_${randomBytes(6).toString("hex")}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    // One connection: the session setting below holds for every statement.
    const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
    db = drizzle(client) as unknown as Database;
    await migrate(drizzle(client), { migrationsFolder: folder });
    upgrade = () => migrate(drizzle(client), { migrationsFolder: migrationsFolder() });
    run = async (statement) => [...(await client.unsafe<Record<string, unknown>[]>(statement))];
    close = async () => {
      await client.end();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  }
  // Rows of projects the test does not build (the foreign keys are not what is upgraded).
  await run(`set session_replication_role = replica`);
  await run(`
    insert into request_log (request_id, project_id, status, http_status, created_at)
    select 'old-' || g, '00000000-0000-4000-8000-000000000001', 'success', 200, '${now.toISOString()}'::timestamptz - interval '40 days' - g * interval '1 minute'
    from generate_series(1, 5) g`);
  await run(`
    insert into request_log (request_id, project_id, status, http_status, created_at)
    select 'recent-' || g, '00000000-0000-4000-8000-000000000001', 'success', 200, '${now.toISOString()}'::timestamptz - g * interval '1 hour'
    from generate_series(1, 20) g`);
  await run(`
    insert into request_source_stats (day, project_id, source_hash, source_url, requests, output_bytes) values
      (${today} - 100, '00000000-0000-4000-8000-000000000001', 'old', 'local/old.jpg', 1, 1),
      (${today}, '00000000-0000-4000-8000-000000000001', 'new', 'local/new.jpg', 1, 1)`);
  await run(`
    insert into request_variant_days (day, project_id, variant) values
      (${today} - 100, '00000000-0000-4000-8000-000000000001', 'old'),
      (${today}, '00000000-0000-4000-8000-000000000001', 'new')`);
  await run(`set session_replication_role = origin`);
});

afterAll(async () => {
  await close?.();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

it("keeps every row and id, attaches the old tables' indexes as they are, and retires them once their newest row expires", async () => {
  const ids = async () =>
    (await run(`select request_id, id::text as id from request_log order by id`)).map((r) => `${r.request_id}=${r.id}`);
  const before = await ids();
  expect(before).toHaveLength(25);
  await upgrade();
  await prepareDayPartitions(db, now, DAYS_AHEAD.open);

  expect(await ids()).toEqual(before);
  const first = `request_log_before_${logBound}`;
  expect(await run(`select distinct tableoid::regclass::text as partition from request_log`)).toEqual([
    { partition: first },
  ]);
  // The old table's four indexes became partitions of the log's own: attached, not built again; only
  // the primary key, which must now hold the time, was built by the migration.
  const attached = await run(`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where c.relname like 'request_log_unpartitioned_%' order by 1`);
  expect(attached.map((r) => r.name)).toEqual([
    "request_log_unpartitioned_pk",
    "request_log_unpartitioned_project_created_id_idx",
    "request_log_unpartitioned_project_source_created_id_idx",
    "request_log_unpartitioned_project_status_created_id_idx",
    "request_log_unpartitioned_request_id_idx",
  ]);
  // New rows are numbered on from the same sequence.
  await run(`set session_replication_role = replica`);
  const [added] = await run(`
    insert into request_log (request_id, project_id, status, http_status)
    values ('after', '00000000-0000-4000-8000-000000000001', 'success', 200) returning id::text as id`);
  await run(`set session_replication_role = origin`);
  expect(Number(added!.id)).toBe(26);

  // Retention deletes the expired rows of the old table, which still holds rows that are not.
  expect(await pruneRequestLog(db, now)).toEqual({ dropped: [], deleted: 5 });
  // The per-variant days (0023, a release later) went the same way.
  expect(await run(`select distinct tableoid::regclass::text as partition from request_variant_days`)).toEqual([
    { partition: `request_variant_days_before_${tomorrow}` },
  ]);
  expect(await pruneRequestStats(db, now)).toEqual({ dropped: [], deleted: 2 });
  expect(await run(`select source_hash from request_source_stats`)).toEqual([{ source_hash: "new" }]);
  expect(await run(`select variant from request_variant_days`)).toEqual([{ variant: "new" }]);
  // Once its newest row is past the retention, it goes whole; the sequence stays with the log.
  const later = new Date(now.getTime() + 32 * DAY);
  expect((await pruneRequestLog(db, later)).dropped).toContain(first);
  const statsLater = new Date(now.getTime() + 92 * DAY);
  expect((await pruneRequestStats(db, statsLater)).dropped).toEqual(
    expect.arrayContaining([`request_source_stats_before_${tomorrow}`, `request_variant_days_before_${tomorrow}`]),
  );
  expect(await run(`select pg_get_serial_sequence('request_log', 'id') as sequence`)).toEqual([
    { sequence: "public.request_log_id_seq" },
  ]);
});

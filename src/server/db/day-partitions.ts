import { sql } from "drizzle-orm";
import type { Database } from "./database";
import { databaseMessage } from "./errors";
import { rowsOf } from "./rows-of";

/**
 * Tables whose rows grow with traffic, partitioned by UTC day (drizzle/0022_request_log_by_day.sql,
 * 0023_variant_days_by_day.sql) so that retention drops a day whole: no dead rows, no vacuum, no lock
 * held for as long as a day's rows take to delete. The statistics that grow with projects, not traffic
 * (request_stats, request_quality_stats, request_minute_stats), are a few rows per project-hour and
 * keep their DELETE.
 *
 * A table's partitions are named by what they hold: `<table>_<YYYYMMDD>` one day,
 * `<table>_before_<YYYYMMDD>` everything before a day (the table as it was before partitioning), and
 * `<table>_default` whatever no other takes (a day nobody prepared: rows are never refused).
 */
export interface DayPartitioned {
  table: "request_log" | "request_source_stats" | "request_variant_days";
  /** The partition key; `timestamptz` bounds are UTC midnights. */
  key: string;
  kind: "timestamptz" | "date";
}

export const DAY_PARTITIONED = {
  requestLog: { table: "request_log", key: "created_at", kind: "timestamptz" },
  requestSourceStats: { table: "request_source_stats", key: "day", kind: "date" },
  requestVariantDays: { table: "request_variant_days", key: "day", kind: "date" },
} as const satisfies Record<string, DayPartitioned>;

/**
 * Days prepared ahead of today by the daily maintenance: a week without it still writes into day
 * partitions. Opening a database prepares one (tomorrow), enough until the maintenance runs.
 */
export const DAYS_AHEAD = { maintenance: 7, open: 1 } as const;

/**
 * How long attaching or dropping a day may wait for a lock (ms) before it is left to the next run: a
 * statement waiting for a table's lock makes every later one wait behind it, and reads are short.
 */
const LOCK_TIMEOUT_MS = 5000;

const DAY_MS = 86_400_000;

type Executor = Pick<Database, "execute">;

interface Partition {
  name: string;
  /** The first day it does not hold (`YYYY-MM-DD`); null for the default partition. */
  until: string | null;
  /** The first day it holds; null when it starts at the beginning of time (or is the default). */
  from: string | null;
}

/**
 * Gives every day from today to `ahead` days on, and every day from `keepFrom` (a table's retention;
 * today when absent) whose rows wait in the default partition, a partition of its own; the rows move
 * with it. Safe beside a running server and another instance doing the same (one at a time per
 * table). Answers the partitions it created.
 */
export async function prepareDayPartitions(
  db: Database,
  now: Date,
  ahead: number,
  keepFrom?: (table: DayPartitioned) => Date,
): Promise<string[]> {
  const created: string[] = [];
  for (const table of Object.values(DAY_PARTITIONED)) {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`optstuff.day-partitions.${table.table}`}))`);
      await tx.execute(sql`set local lock_timeout = ${sql.raw(String(LOCK_TIMEOUT_MS))}`);
      const present = await partitionsOf(tx, table);
      const earliest = dayOf(keepFrom?.(table) ?? now);
      const waiting = (await daysInDefault(tx, table)).filter((day) => day >= earliest);
      const wanted = new Set([...waiting, ...Array.from({ length: ahead + 1 }, (_, i) => addDays(dayOf(now), i))]);
      for (const day of [...wanted].sort()) {
        if (present.some((p) => covers(p, day))) continue;
        created.push(await createDay(tx, table, day));
      }
    });
  }
  return created;
}

/**
 * Drops the partitions holding only rows older than `keepFrom` (for a `date` key, older than its day)
 * and deletes such rows from those that also hold newer ones without a day of their own: the default
 * partition, and the table as it was before partitioning until its newest row expires. A drop waits
 * LOCK_TIMEOUT_MS at most for the table's lock (a long read holds it); one that could not is named in
 * the error, after the others ran.
 */
export async function retireDayPartitions(
  db: Database,
  table: DayPartitioned,
  keepFrom: Date,
  options: { batchSize?: number; lockTimeoutMs?: number } = {},
): Promise<{ dropped: string[]; deleted: number }> {
  const { batchSize = 10_000, lockTimeoutMs = LOCK_TIMEOUT_MS } = options;
  const dropped: string[] = [];
  const failed: string[] = [];
  let deleted = 0;
  for (const partition of await partitionsOf(db, table)) {
    if (partition.until === null || Date.parse(`${partition.until}T00:00:00Z`) > keepFrom.getTime()) {
      if (partition.from === null) deleted += await deleteExpired(db, table, partition.name, keepFrom, batchSize);
      continue;
    }
    try {
      await db.transaction(async (tx) => {
        await tx.execute(sql`set local lock_timeout = ${sql.raw(String(Math.trunc(lockTimeoutMs)))}`);
        await tx.execute(sql`drop table ${sql.identifier(partition.name)}`);
      });
      dropped.push(partition.name);
    } catch (error) {
      failed.push(`${partition.name}: ${databaseMessage(error)}`);
    }
  }
  if (failed.length > 0) throw new Error(`partitions not dropped (next run retries): ${failed.join("; ")}`);
  return { dropped, deleted };
}

/**
 * In batches, each a short statement. No index serves the time alone, and none is needed: the default
 * partition holds no rows but for days nobody prepared, and the first, older rows of a table as it was
 * before partitioning come first in its heap.
 */
async function deleteExpired(
  db: Executor,
  table: DayPartitioned,
  partition: string,
  keepFrom: Date,
  batchSize: number,
) {
  const name = sql.identifier(partition);
  const key = sql.identifier(table.key);
  const bound = table.kind === "date" ? sql`${dayOf(keepFrom)}::date` : sql`${keepFrom.toISOString()}::timestamptz`;
  let total = 0;
  for (;;) {
    const deleted = rowsOf<{ n: number }>(
      await db.execute(sql`
        with gone as (
          delete from ${name} where ctid in (select ctid from ${name} where ${key} < ${bound} limit ${batchSize})
          returning 1)
        select count(*)::int as n from gone`),
    )[0]!.n;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

async function createDay(tx: Executor, table: DayPartitioned, day: string): Promise<string> {
  const name = `${table.table}_${day.replaceAll("-", "")}`;
  const [from, to] = [bound(table, day), bound(table, addDays(day, 1))];
  const parent = sql.identifier(table.table);
  const partition = sql.identifier(name);
  const key = sql.identifier(table.key);
  // Built beside the table and attached: attaching does not stop writes to the table, creating a
  // partition in it would; the default partition's rows for the day move in first (it may hold none then).
  await tx.execute(sql`create table ${partition} (like ${parent})`);
  await tx.execute(sql`
    with moved as (
      delete from ${sql.identifier(`${table.table}_default`)} where ${key} >= ${sql.raw(from)} and ${key} < ${sql.raw(to)}
      returning *)
    insert into ${partition} select * from moved`);
  await tx.execute(
    sql`alter table ${parent} attach partition ${partition} for values from (${sql.raw(from)}) to (${sql.raw(to)})`,
  );
  return name;
}

/** A bound as SQL text: `day` is one this module formatted (digits and dashes only). */
function bound(table: DayPartitioned, day: string): string {
  return table.kind === "date" ? `'${day}'::date` : `'${day} 00:00:00+00'::timestamptz`;
}

async function daysInDefault(tx: Executor, table: DayPartitioned): Promise<string[]> {
  const key = sql.identifier(table.key);
  const day = table.kind === "date" ? key : sql`(${key} at time zone 'UTC')::date`;
  return rowsOf<{ day: string }>(
    await tx.execute(sql`select distinct ${day}::text as day from ${sql.identifier(`${table.table}_default`)}`),
  ).map((r) => r.day);
}

async function partitionsOf(db: Executor, table: DayPartitioned): Promise<Partition[]> {
  const rows = rowsOf<{ name: string }>(
    await db.execute(sql`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = to_regclass(${`public.${table.table}`})`),
  );
  return rows.flatMap(({ name }) => {
    const partition = describe(table, name);
    return partition ? [partition] : [];
  });
}

/** What a partition holds, from its name (see DayPartitioned); null for a name this module never gives. */
function describe(table: DayPartitioned, name: string): Partition | null {
  const rest = name.slice(table.table.length + 1);
  if (!name.startsWith(`${table.table}_`)) return null;
  if (rest === "default") return { name, from: null, until: null };
  const before = rest.startsWith("before_") ? dayFromDigits(rest.slice("before_".length)) : null;
  if (before) return { name, from: null, until: before };
  const day = dayFromDigits(rest);
  return day ? { name, from: day, until: addDays(day, 1) } : null;
}

function dayFromDigits(digits: string): string | null {
  if (digits.length !== 8 || !/^\d{8}$/.test(digits)) return null;
  const day = `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6)}`;
  return Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ? null : day;
}

function covers(partition: Partition, day: string): boolean {
  if (partition.until === null) return false;
  return (partition.from === null || partition.from <= day) && day < partition.until;
}

function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

function addDays(day: string, days: number): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

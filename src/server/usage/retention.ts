import { lt } from "drizzle-orm";
import { TTL_SECONDS } from "@/server/coordination/keys";
import type { Database } from "@/server/db/client";
import {
  DAY_PARTITIONED,
  DAYS_AHEAD,
  type DayPartitioned,
  prepareDayPartitions,
  retireDayPartitions,
} from "@/server/db/day-partitions";
import { requestQualityStats, requestStats, usageFlushLedger } from "@/server/db/schema";

export const REQUEST_LOG_RETENTION_DAYS = 30;
/** The statistics cover the longest range the usage page shows (90 days) and the day that is running. */
export const REQUEST_STATS_RETENTION_DAYS = 91;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Ledger rows outlive their bucket's TTL by a day: a claim can only be pending while its bucket exists,
 * so a pruned row can never be needed to recognise a retried claim.
 */
export const LEDGER_RETENTION_MS = TTL_SECONDS.usageBucket * 1000 + 24 * 60 * 60 * 1000;

/** Days each day-partitioned table keeps (db/day-partitions.ts): whole days, dropped when they pass. */
const KEPT_DAYS: Record<DayPartitioned["table"], number> = {
  request_log: REQUEST_LOG_RETENTION_DAYS,
  request_source_stats: REQUEST_STATS_RETENTION_DAYS,
  request_variant_days: REQUEST_STATS_RETENTION_DAYS,
};

/** The first instant a day-partitioned table keeps at `now`. */
export function keptFrom(now: Date): (table: DayPartitioned) => Date {
  return (table) => new Date(now.getTime() - KEPT_DAYS[table.table] * DAY_MS);
}

/**
 * The week ahead gets its day partitions, and so do the kept days whose rows wait in the default
 * partition (the maintenance did not run for a week); run before the retention below.
 */
export function prepareDays(db: Database, now: Date): Promise<string[]> {
  return prepareDayPartitions(db, now, DAYS_AHEAD.maintenance, keptFrom(now));
}

export interface Retired {
  /** Partitions dropped: days whose every row passed the retention. */
  dropped: string[];
  /** Rows deleted, in batches: from tables not partitioned, and partitions that also hold newer rows. */
  deleted: number;
}

export function pruneRequestLog(db: Database, now: Date, batchSize = 10_000): Promise<Retired> {
  const table = DAY_PARTITIONED.requestLog;
  return retireDayPartitions(db, table, keptFrom(now)(table), { batchSize });
}

/**
 * The hourly and per-mode statistics are a few rows per project-hour: one DELETE each. The per-source
 * and per-variant days grow with traffic and are partitioned by day.
 */
export async function pruneRequestStats(db: Database, now: Date): Promise<Retired> {
  const before = new Date(now.getTime() - REQUEST_STATS_RETENTION_DAYS * DAY_MS);
  const hours = await db.delete(requestStats).where(lt(requestStats.hour, before)).returning({ at: requestStats.hour });
  const modes = await db
    .delete(requestQualityStats)
    .where(lt(requestQualityStats.day, before.toISOString().slice(0, 10)))
    .returning({ day: requestQualityStats.day });
  const retired: Retired = { dropped: [], deleted: hours.length + modes.length };
  for (const table of [DAY_PARTITIONED.requestSourceStats, DAY_PARTITIONED.requestVariantDays]) {
    const { dropped, deleted } = await retireDayPartitions(db, table, keptFrom(now)(table));
    retired.dropped.push(...dropped);
    retired.deleted += deleted;
  }
  return retired;
}

export async function pruneLedger(db: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - LEDGER_RETENTION_MS);
  return (
    await db
      .delete(usageFlushLedger)
      .where(lt(usageFlushLedger.flushedAt, before))
      .returning({ bucket: usageFlushLedger.bucket })
  ).length;
}

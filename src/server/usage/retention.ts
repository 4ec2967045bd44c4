import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { TTL_SECONDS } from "@/server/coordination/keys";
import type { Database } from "@/server/db/client";
import {
  projects,
  requestLog,
  requestQualityStats,
  requestSourceStats,
  requestStats,
  requestVariantDays,
  usageFlushLedger,
} from "@/server/db/schema";

export const REQUEST_LOG_RETENTION_DAYS = 30;
/** The statistics cover the longest range the usage page shows (90 days) and the day that is running. */
export const REQUEST_STATS_RETENTION_DAYS = 91;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Ledger rows outlive their bucket's TTL by a day: a claim can only be pending while its bucket exists,
 * so a pruned row can never be needed to recognise a retried claim.
 */
export const LEDGER_RETENTION_MS = TTL_SECONDS.usageBucket * 1000 + 24 * 60 * 60 * 1000;

/** Deletes in batches so a large backlog never holds one long lock on the table. */
async function deleteInBatches(step: () => Promise<number>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await step();
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/**
 * Project by project, each down its own (project, time) index: the log keeps no index on the time
 * alone (schema/usage.ts), and a project with nothing old costs one probe.
 */
export async function pruneRequestLog(db: Database, now: Date, batchSize = 10_000): Promise<number> {
  const before = new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  let total = 0;
  for (const { id: projectId } of await db.select({ id: projects.id }).from(projects)) {
    const step = async () => {
      const old = db
        .select({ id: requestLog.id })
        .from(requestLog)
        .where(and(eq(requestLog.projectId, projectId), lt(requestLog.createdAt, before)))
        .limit(batchSize);
      return (await db.delete(requestLog).where(inArray(requestLog.id, old)).returning({ id: requestLog.id })).length;
    };
    total += await deleteInBatches(step, batchSize);
  }
  return total;
}

/** A day's statistics are a few rows per project-hour: one DELETE each, no batching needed. */
export async function pruneRequestStats(db: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - REQUEST_STATS_RETENTION_DAYS * DAY_MS);
  const hours = await db.delete(requestStats).where(lt(requestStats.hour, before)).returning({ at: requestStats.hour });
  const days = await db
    .delete(requestSourceStats)
    .where(lt(requestSourceStats.day, before.toISOString().slice(0, 10)))
    .returning({ day: requestSourceStats.day });
  const modes = await db
    .delete(requestQualityStats)
    .where(lt(requestQualityStats.day, before.toISOString().slice(0, 10)))
    .returning({ day: requestQualityStats.day });
  const variants = await pruneVariantDays(db, before.toISOString().slice(0, 10));
  return hours.length + days.length + modes.length + variants;
}

/** A row per variant a project delivered each day: a busy project's days are many rows, so batched. */
function pruneVariantDays(db: Database, beforeDay: string, batchSize = 10_000): Promise<number> {
  const t = requestVariantDays;
  const step = async () =>
    (
      await db
        .delete(t)
        .where(sql`ctid in (select ctid from ${t} where ${t.day} < ${beforeDay} limit ${batchSize})`)
        .returning({ day: t.day })
    ).length;
  return deleteInBatches(step, batchSize);
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

import { eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { cronRun } from "@/server/db/schema";

export type CronJob = "flush-usage-buffer" | "daily-maintenance";

export interface CronRunState {
  job: CronJob;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
}

/**
 * Runs a job and records its start, end, report and whether it succeeded (`ok` false in the report
 * counts as a failure). The dashboard reads the last success as metering freshness.
 */
export async function runRecorded<T extends { ok: boolean }>(db: Database, job: CronJob, now: () => Date, run: () => Promise<T>): Promise<T> {
  const startedAt = now();
  await db
    .insert(cronRun)
    .values({ job, lastStartedAt: startedAt })
    .onConflictDoUpdate({ target: cronRun.job, set: { lastStartedAt: startedAt } });
  let report: T | undefined;
  let failure: string | null = null;
  try {
    report = await run();
    if (!report.ok) failure = "a part failed: see the report";
    return report;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    throw error;
  } finally {
    const finishedAt = now();
    await db
      .update(cronRun)
      .set({ lastFinishedAt: finishedAt, lastReport: report ?? null, lastError: failure, ...(failure ? {} : { lastSuccessAt: finishedAt }) })
      .where(eq(cronRun.job, job));
  }
}

export async function cronRunState(db: Database, job: CronJob): Promise<CronRunState> {
  const [row] = await db.select().from(cronRun).where(eq(cronRun.job, job));
  return { job, lastStartedAt: row?.lastStartedAt ?? null, lastFinishedAt: row?.lastFinishedAt ?? null, lastSuccessAt: row?.lastSuccessAt ?? null, lastError: row?.lastError ?? null };
}

import { eq, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { traced } from "@/server/telemetry/spans";
import { cronRun } from "@/server/db/schema";

export type CronJob = "flush-usage-buffer" | "daily-maintenance" | "check-alerts";

/** How the last finished run ended; null before any run finished. */
export type CronOutcome = "success" | "failure" | "skipped";

export interface CronRunState {
  job: CronJob;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
  /** When the last success finished, or the instant its work covers when the job says (the usage flush). */
  lastSuccessAt: Date | null;
  /** The last failure's message, kept until a run succeeds (a skipped run leaves it). */
  lastError: string | null;
  lastOutcome: CronOutcome | null;
}

/**
 * What a job answers: `ok` false counts as a failure; `skipped` (another run holds the work, say) is
 * neither a success nor a failure.
 */
export interface CronReport {
  ok: boolean;
  skipped?: boolean;
}

/**
 * Runs a job and records its start, end, report and how it ended. A success moves lastSuccessAt (to
 * `asOf(report)` when given, never backwards) and clears lastError; a failure sets lastError; a
 * skipped run moves neither. The dashboard reads the flush's last success as metering freshness.
 */
export async function runRecorded<T extends CronReport>(
  db: Database,
  job: CronJob,
  now: () => Date,
  run: () => Promise<T>,
  asOf?: (report: T) => Date | null,
): Promise<T> {
  return traced(`cron ${job}`, { "optstuff.cron.job": job }, async (span) => {
    const report = await recorded(db, job, now, run, asOf);
    span?.setAttributes({ "optstuff.cron.ok": report.ok, "optstuff.cron.skipped": report.skipped === true });
    return report;
  });
}

async function recorded<T extends CronReport>(
  db: Database,
  job: CronJob,
  now: () => Date,
  run: () => Promise<T>,
  asOf?: (report: T) => Date | null,
): Promise<T> {
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
    const ended = failure
      ? { lastError: failure }
      : report?.skipped
        ? {}
        : { lastError: null, lastSuccessAt: successAt(report && asOf?.(report), finishedAt) };
    await db
      .update(cronRun)
      .set({ lastFinishedAt: finishedAt, lastReport: report ?? null, ...ended })
      .where(eq(cronRun.job, job));
  }
}

function successAt(asOf: Date | null | undefined, finishedAt: Date) {
  return asOf ? sql`greatest(${cronRun.lastSuccessAt}, ${asOf.toISOString()}::timestamptz)` : finishedAt;
}

export async function cronRunState(db: Database, job: CronJob): Promise<CronRunState> {
  const [row] = await db.select().from(cronRun).where(eq(cronRun.job, job));
  const skipped = (row?.lastReport as CronReport | null | undefined)?.skipped === true;
  const lastOutcome = !row?.lastFinishedAt
    ? null
    : skipped
      ? "skipped"
      : row.lastError !== null
        ? "failure"
        : "success";
  return {
    job,
    lastStartedAt: row?.lastStartedAt ?? null,
    lastFinishedAt: row?.lastFinishedAt ?? null,
    lastSuccessAt: row?.lastSuccessAt ?? null,
    lastError: row?.lastError ?? null,
    lastOutcome,
  };
}

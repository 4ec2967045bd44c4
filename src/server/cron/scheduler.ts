import { describeError, type Logger } from "@/server/log";
import type { CronJobs } from "./jobs";

export interface SchedulerOptions {
  flushEveryMs: number;
  /** UTC hour:minute of the daily maintenance (Vercel Cron's schedule in vercel.json says the same). */
  dailyAtUtc: { hour: number; minute: number };
}

export const defaultSchedule: SchedulerOptions = { flushEveryMs: 60_000, dailyAtUtc: { hour: 3, minute: 0 } };

/** Milliseconds from `now` to the next daily run. */
export function msUntilDaily(now: Date, at: SchedulerOptions["dailyAtUtc"]): number {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), at.hour, at.minute));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime() - now.getTime();
}

/**
 * The cron routes' schedule, in process, for deployments without an external scheduler (the embedded
 * default, self-hosted instances). Runs never overlap here, and across instances the flush lock elects
 * one. Timers are unref'd: they never keep a stopping process alive.
 */
export function startScheduler(jobs: CronJobs, logger: Logger, options: SchedulerOptions = defaultSchedule, now: () => Date = () => new Date()) {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const run = (name: string, job: () => Promise<{ ok: boolean }>) => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        const report = await job();
        if (!report.ok) logger.log("warn", "scheduled job reported a failure", { job: name, report });
      } catch (error) {
        logger.log("error", "scheduled job failed", { job: name, ...describeError(error) });
      }
    });
  };
  const flushTimer = setInterval(() => run("flush-usage-buffer", () => jobs.flushUsage()), options.flushEveryMs);
  flushTimer.unref();
  let dailyTimer: NodeJS.Timeout;
  const scheduleDaily = () => {
    dailyTimer = setTimeout(() => {
      run("daily-maintenance", () => jobs.dailyMaintenance());
      scheduleDaily();
    }, msUntilDaily(now(), options.dailyAtUtc));
    dailyTimer.unref();
  };
  scheduleDaily();
  return {
    /** Stops the timers and waits for a run in progress. */
    async stop() {
      stopped = true;
      clearInterval(flushTimer);
      clearTimeout(dailyTimer);
      await running;
    },
  };
}

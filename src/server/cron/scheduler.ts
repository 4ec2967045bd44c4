import { describeError, type Logger } from "@/server/log";
import { defaultFlushOptions } from "@/server/usage/flush-usage-buffer";
import type { CronJobs } from "./jobs";

export interface SchedulerOptions {
  /** Flush period; each run starts `flushOffsetMs` after a multiple of it since the epoch. Default 60 s. */
  flushEveryMs: number;
  /**
   * Default: the flush's safety lag and one second more, so with 60 s each run comes just after the
   * minute that ended is ready, instead of at whatever second the process happened to start.
   */
  flushOffsetMs: number;
  /** UTC hour:minute of the daily maintenance (Vercel Cron's schedule in vercel.json says the same). */
  dailyAtUtc: { hour: number; minute: number };
}

export const defaultSchedule: SchedulerOptions = {
  flushEveryMs: 60_000,
  flushOffsetMs: defaultFlushOptions.safetyLagMs + 1_000,
  dailyAtUtc: { hour: 3, minute: 0 },
};

/** Milliseconds from `now` to the next daily run. */
export function msUntilDaily(now: Date, at: SchedulerOptions["dailyAtUtc"]): number {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), at.hour, at.minute));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime() - now.getTime();
}

/** Milliseconds from `now` to the next flush: `flushOffsetMs` past the next multiple of `flushEveryMs`. */
export function msUntilFlush(now: Date, options: Pick<SchedulerOptions, "flushEveryMs" | "flushOffsetMs">): number {
  const every = options.flushEveryMs;
  const phase = (((now.getTime() - options.flushOffsetMs) % every) + every) % every;
  return every - phase;
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
  let flushTimer: NodeJS.Timeout;
  // From the planned instant, not the clock at firing: a timer that fires a hair early must not run twice.
  let nextFlush = now().getTime() + msUntilFlush(now(), options);
  const scheduleFlush = () => {
    flushTimer = setTimeout(() => {
      run("flush-usage-buffer", () => jobs.flushUsage());
      do nextFlush += options.flushEveryMs;
      while (nextFlush <= now().getTime()); // a process that slept past runs skips them
      scheduleFlush();
    }, nextFlush - now().getTime());
    flushTimer.unref();
  };
  scheduleFlush();
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
    options,
    /** Stops the timers and waits for a run in progress. */
    async stop() {
      stopped = true;
      clearTimeout(flushTimer);
      clearTimeout(dailyTimer);
      await running;
    },
  };
}

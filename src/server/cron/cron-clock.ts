import { describeError, type Logger } from "@/server/log";
import type { CronJobs } from "./jobs";
import { defaultSchedule, msUntilDaily, msUntilFlush, type SchedulerOptions } from "./schedule";

/** What the clock runs (CronJobs has them all): each says whether it went well, and is logged when not. */
export type ScheduledJobs = Record<
  "flushUsage" | "dailyMaintenance" | "checkAlerts" | "tendTables",
  () => Promise<{ ok: boolean }>
>;

/**
 * The cron routes' schedule, in process, for deployments without an external scheduler (the embedded
 * default, self-hosted instances). Runs of a line never overlap here, and across instances the flush
 * lock elects one flush. Timers are unref'd: they never keep a stopping process alive.
 */
export function startScheduler(
  jobs: ScheduledJobs,
  logger: Logger,
  options: SchedulerOptions = defaultSchedule,
  now: () => Date = () => new Date(),
) {
  let stopped = false;
  // Two lines of runs: metering (flush, maintenance) never waits behind an alert check's mail server.
  const lines = { metering: Promise.resolve() as Promise<unknown>, alerts: Promise.resolve() as Promise<unknown> };
  const run = (name: string, job: () => Promise<{ ok: boolean }>, line: keyof typeof lines = "metering") => {
    lines[line] = lines[line].then(async () => {
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
      // After the flush on its line, never beside it: the embedded database runs one statement at a time.
      run("table-upkeep", () => jobs.tendTables());
      // Every minute too, on its own line (a slow mail server delays no flush).
      run("check-alerts", () => jobs.checkAlerts(), "alerts");
      do nextFlush += options.flushEveryMs;
      while (nextFlush <= now().getTime()); // a process that slept past runs skips them
      scheduleFlush();
    }, nextFlush - now().getTime());
    flushTimer.unref();
  };
  scheduleFlush();
  let dailyTimer: NodeJS.Timeout;
  const scheduleDaily = () => {
    dailyTimer = setTimeout(
      () => {
        run("daily-maintenance", () => jobs.dailyMaintenance());
        scheduleDaily();
      },
      msUntilDaily(now(), options.dailyAtUtc),
    );
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
      await Promise.all(Object.values(lines));
    },
  };
}

/**
 * The process's schedule, started on demand (servers start it; the CLI and tests never do) and stopped
 * on shutdown. `options` is null until it starts: the dashboard says metering runs elsewhere then.
 */
export function scheduleOnDemand(jobs: CronJobs, logger: Logger) {
  let running: ReturnType<typeof startScheduler> | null = null;
  return {
    start(): void {
      running ??= startScheduler(jobs, logger);
    },
    options: (): SchedulerOptions | null => running?.options ?? null,
    stop: async (): Promise<void> => {
      await running?.stop();
    },
  };
}

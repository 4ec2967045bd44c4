/** When the cron jobs run: the schedule both the in-process scheduler and the dashboard's freshness read. */
import { defaultFlushOptions } from "@/server/usage/flush-usage-buffer";

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

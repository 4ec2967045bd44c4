import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { authorizeCron } from "@/server/cron/authorize-cron";
import { meteringDelayMs } from "@/server/cron/metering-freshness";
import { defaultSchedule, msUntilDaily, msUntilFlush } from "@/server/cron/schedule";
import { startScheduler, type ScheduledJobs } from "@/server/cron/cron-clock";
import { defaultFlushOptions } from "@/server/usage/flush-usage-buffer";
import { createLogger } from "@/server/log";

describe("msUntilDaily", () => {
  it("finds the next 03:00 UTC, today or tomorrow", () => {
    expect(msUntilDaily(new Date("2026-03-07T02:59:00Z"), { hour: 3, minute: 0 })).toBe(60_000);
    expect(msUntilDaily(new Date("2026-03-07T03:00:00Z"), { hour: 3, minute: 0 })).toBe(24 * 3_600_000);
    expect(msUntilDaily(new Date("2026-12-31T23:00:00Z"), { hour: 3, minute: 0 })).toBe(4 * 3_600_000);
  });
});

describe("in-process scheduler", () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date("2026-03-07T02:58:30Z") }));
  afterEach(() => vi.useRealTimers());

  it("flushes every minute, runs the maintenance at its hour, never two runs at once, and stops cleanly", async () => {
    // 02:58:30 now; flushes at 30 s past each minute.
    const calls: string[] = [];
    let active = 0;
    let overlapped = false;
    const job = (name: string) => async () => {
      overlapped ||= active > 0;
      active++;
      calls.push(name);
      await new Promise((resolve) => setTimeout(resolve, 90_000)); // slower than the interval
      active--;
      return { ok: true };
    };
    let alertChecks = 0;
    const jobs: ScheduledJobs = {
      flushUsage: job("flush"),
      dailyMaintenance: job("daily"),
      checkAlerts: async () => (alertChecks++, { ok: true }),
      tendTables: async () => (calls.push("tend"), { ok: true }),
    };
    const logged: string[] = [];
    const scheduler = startScheduler(
      jobs,
      createLogger("debug", (line) => logged.push(line)),
      { flushEveryMs: 60_000, flushOffsetMs: 30_000, dailyAtUtc: { hour: 3, minute: 0 } },
      () => new Date(),
    );
    await vi.advanceTimersByTimeAsync(60_000); // 02:59:30: first flush starts
    await vi.advanceTimersByTimeAsync(30_000); // 03:00: maintenance due, queued behind the flush
    expect(calls).toEqual(["flush"]);
    await vi.advanceTimersByTimeAsync(60_000);
    // The table upkeep follows its flush on the same line: never beside a statement of the flush.
    expect(calls).toEqual(["flush", "tend", "daily"]);
    expect(overlapped).toBe(false);
    const stopped = scheduler.stop();
    await vi.advanceTimersByTimeAsync(400_000);
    await stopped;
    expect(calls.filter((c) => c === "daily")).toHaveLength(1);
    expect(active).toBe(0);
    // On their own line: the slow flushes held neither check (02:59:30, 03:00:30).
    expect(alertChecks).toBe(2);
    expect(logged).toEqual([]);
  });
});

describe("the flush schedule", () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date("2026-03-07T12:00:42.500Z") }));
  afterEach(() => vi.useRealTimers());

  it("runs just after each minute is ready (safety lag + 1 s past the minute), once per minute", async () => {
    expect(defaultSchedule.flushOffsetMs).toBe(defaultFlushOptions.safetyLagMs + 1_000);
    expect(msUntilFlush(new Date("2026-03-07T12:00:42.500Z"), defaultSchedule)).toBe(
      60_000 - 42_500 + defaultSchedule.flushOffsetMs,
    );
    expect(msUntilFlush(new Date("2026-03-07T12:00:03Z"), { flushEveryMs: 60_000, flushOffsetMs: 6_000 })).toBe(3_000);
    expect(msUntilFlush(new Date("2026-03-07T12:00:06Z"), { flushEveryMs: 60_000, flushOffsetMs: 6_000 })).toBe(60_000);

    const runs: string[] = [];
    const flushUsage = async () => {
      runs.push(new Date().toISOString());
      return { ok: true };
    };
    const ok = async () => ({ ok: true });
    const jobs: ScheduledJobs = { flushUsage, dailyMaintenance: ok, checkAlerts: ok, tendTables: ok };
    const logged: string[] = [];
    const logger = createLogger("debug", (line) => logged.push(line));
    const scheduler = startScheduler(jobs, logger, { ...defaultSchedule, flushOffsetMs: 6_000 });
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(runs).toEqual(["2026-03-07T12:01:06.000Z", "2026-03-07T12:02:06.000Z", "2026-03-07T12:03:06.000Z"]);
    await scheduler.stop();
    expect(logged).toEqual([]);
  });

  it("says how long a request takes, at worst, to be metered: its minute, the lag, the wait for the run", () => {
    // A request at 12:00:00.000 is ready at 12:01:05 and flushed at 12:01:06.
    expect(meteringDelayMs(defaultSchedule, defaultFlushOptions)).toBe(66_000);
    // The old schedule: 60 s lag, every 60 s from whenever the process started (worst phase).
    expect(meteringDelayMs({ flushEveryMs: 60_000, flushOffsetMs: 59_999 }, { safetyLagMs: 60_000 })).toBe(179_999);
    // An outside caller at the top of every minute (Vercel Cron `* * * * *`) misses the minute that just ended.
    expect(meteringDelayMs({ flushEveryMs: 60_000, flushOffsetMs: 0 }, defaultFlushOptions)).toBe(120_000);
    expect(meteringDelayMs({ flushEveryMs: 5 * 60_000, flushOffsetMs: 6_000 }, defaultFlushOptions)).toBe(
      5 * 60_000 + 6_000,
    );
  });
});

describe("authorizeCron", () => {
  it("accepts only the exact bearer secret and refuses everything when none is configured", () => {
    expect(() => authorizeCron("Bearer s3cret", "s3cret")).not.toThrow();
    for (const header of [null, "", "Bearer", "Bearer ", "bearer s3cret", "Bearer s3cret ", "Bearer s3cre", "s3cret"]) {
      expect(() => authorizeCron(header, "s3cret")).toThrow(expect.objectContaining({ code: "CRON_UNAUTHORIZED" }));
    }
    expect(() => authorizeCron("Bearer ", null)).toThrow(expect.objectContaining({ code: "CRON_NOT_CONFIGURED" }));
    expect(() => authorizeCron("Bearer x", "")).toThrow(expect.objectContaining({ code: "CRON_NOT_CONFIGURED" }));
  });
});

describe("vercel.json", () => {
  it("schedules the daily maintenance when the in-process scheduler does, on a route that exists", () => {
    const config = JSON.parse(readFileSync("vercel.json", "utf8")) as {
      crons: Array<{ path: string; schedule: string }>;
    };
    const { hour, minute } = defaultSchedule.dailyAtUtc;
    expect(config.crons).toContainEqual({ path: "/api/cron/daily-maintenance", schedule: `${minute} ${hour} * * *` });
    for (const cron of config.crons) expect(existsSync(`src/app${cron.path}/route.ts`)).toBe(true);
  });
});

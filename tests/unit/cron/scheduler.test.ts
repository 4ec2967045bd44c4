import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { authorizeCron } from "@/server/cron/authorize-cron";
import type { CronJobs } from "@/server/cron/jobs";
import { defaultSchedule, msUntilDaily, startScheduler } from "@/server/cron/scheduler";
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
    const jobs = { flushUsage: job("flush"), dailyMaintenance: job("daily") } as unknown as CronJobs;
    const scheduler = startScheduler(jobs, createLogger("error"), { flushEveryMs: 60_000, dailyAtUtc: { hour: 3, minute: 0 } }, () => new Date());
    await vi.advanceTimersByTimeAsync(60_000); // 02:59:30: first flush starts
    await vi.advanceTimersByTimeAsync(30_000); // 03:00: maintenance due, queued behind the flush
    expect(calls).toEqual(["flush"]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual(["flush", "daily"]);
    expect(overlapped).toBe(false);
    const stopped = scheduler.stop();
    await vi.advanceTimersByTimeAsync(400_000);
    await stopped;
    expect(calls.filter((c) => c === "daily")).toHaveLength(1);
    expect(active).toBe(0);
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
    const config = JSON.parse(readFileSync("vercel.json", "utf8")) as { crons: Array<{ path: string; schedule: string }> };
    const { hour, minute } = defaultSchedule.dailyAtUtc;
    expect(config.crons).toContainEqual({ path: "/api/cron/daily-maintenance", schedule: `${minute} ${hour} * * *` });
    for (const cron of config.crons) expect(existsSync(`src/app${cron.path}/route.ts`)).toBe(true);
  });
});

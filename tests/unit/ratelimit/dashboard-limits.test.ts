import { describe, expect, it } from "vitest";
import { rateLimitSubjects } from "@/server/coordination/keys";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { withRefusalMemo } from "@/server/coordination/refusal-memo";
import type { RateLimiter } from "@/server/coordination/types";
import { AppError } from "@/server/errors";
import { createDashboardAdmission } from "@/server/ratelimit/dashboard-admission";
import { dashboardLimits, limitsFor } from "@/server/ratelimit/dashboard-limits";
import { quotas } from "@/server/tenancy/quotas";

const MINUTE = 60_000;
// An hour's start: the test walks through one fixed hour window.
const HOUR_START = Date.UTC(2026, 10, 23, 9, 0, 0);

function setup(inner?: RateLimiter) {
  let at = HOUR_START;
  const now = () => at;
  const limiter = inner ?? createMemoryRateLimiter({ now });
  const errors: unknown[] = [];
  const admission = createDashboardAdmission({
    limiter: withRefusalMemo(limiter, now),
    now,
    onLimiterError: (error) => errors.push(error),
  });
  return {
    admission,
    errors,
    limiter,
    at: (ms: number) => {
      at = HOUR_START + ms;
    },
  };
}

async function refusalOf(admitted: Promise<void>): Promise<AppError | null> {
  return admitted.then(
    () => null,
    (error: unknown) => {
      if (!(error instanceof AppError)) throw error;
      return error;
    },
  );
}

const changes = limitsFor({ type: "mutation" });

describe("which windows a dashboard call spends", () => {
  it("charges every mutation as a change, a purge besides, a slug check in its own windows, and other reads nothing", () => {
    const names = (call: Parameters<typeof limitsFor>[0]) =>
      limitsFor(call).map((limit) => Object.entries(dashboardLimits).find(([, l]) => l === limit)![0]);
    expect(names({ type: "mutation", permission: "project.create" })).toEqual(["changesPerMinute", "changesPerHour"]);
    expect(names({ type: "mutation", permission: "cache.purge" })).toEqual([
      "changesPerMinute",
      "changesPerHour",
      "purgesPerMinute",
      "purgesPerHour",
    ]);
    expect(names({ type: "query", counts: "slugCheck" })).toEqual([
      "slugChecksPerMinute",
      "slugChecksPerHour",
      "readsPerMinute",
    ]);
    // Every read counts; a read of logs or statistics counts besides, in a window of its own.
    expect(names({ type: "query", permission: "team.read" })).toEqual(["readsPerMinute"]);
    expect(names({ type: "query", permission: "usage.read", counts: "heavyRead" })).toEqual([
      "readsPerMinute",
      "heavyReadsPerMinute",
    ]);
  });

  it("never refuses what only takes access away: revoking keys and invitations, removing members, leaving", () => {
    for (const permission of ["apiKey.revoke", "invitation.revoke", "member.remove", "member.leave"] as const)
      expect(limitsFor({ type: "mutation", permission })).toEqual([]);
    expect(limitsFor({ type: "mutation", permission: "apiKey.create" })).not.toEqual([]);
  });

  it("keeps each account's and each team's windows apart", () => {
    expect(new Set(Object.values(dashboardLimits).map((l) => l.subject("u1"))).size).toBe(6);
    expect(quotas.uploadsPerTeamHour.subject("t1")).toBe(rateLimitSubjects.teamUploads("t1"));
    expect(rateLimitSubjects.userChanges("u1")).not.toBe(rateLimitSubjects.userChanges("u2"));
  });
});

describe("the dashboard's windows", () => {
  it("refuses the 61st change in a minute with the limit, its window and Retry-After, and not another account's", async () => {
    const { admission, at } = setup();
    at(10_000);
    for (let i = 0; i < 60; i++) await admission.admit(changes, "busy");
    const refused = await refusalOf(admission.admit(changes, "busy"));
    expect(refused).toMatchObject({ code: "DASHBOARD_RATE_LIMITED", status: 429 });
    expect(refused!.publicMessage).toBe(
      "Too many changes: an account may make at most 60 changes a minute. Try again in 50 s.",
    );
    expect(refused!.headers).toEqual({ "Retry-After": "50" });
    expect(await refusalOf(admission.admit(changes, "calm"))).toBeNull();
  });

  it("holds an account to 600 changes an hour although no minute passes 60", async () => {
    const { admission, at } = setup();
    // Ten bursts of 60, two minutes apart: each minute window is fresh, the hour fills.
    for (let burst = 0; burst < 10; burst++) {
      at(burst * 2 * MINUTE);
      for (let i = 0; i < 60; i++) expect(await refusalOf(admission.admit(changes, "script"))).toBeNull();
    }
    at(20 * MINUTE);
    const refused = await refusalOf(admission.admit(changes, "script"));
    expect(refused!.publicMessage).toBe(
      "Too many changes: an account may make at most 600 changes an hour. Try again in 40 min.",
    );
    expect(refused!.headers["Retry-After"]).toBe(String(40 * 60));
  });

  it("gives back the hour's token when the minute refuses, so refused calls do not spend the hour", async () => {
    const { admission, limiter, at } = setup();
    for (let i = 0; i < 60; i++) await admission.admit(changes, "eager");
    for (let i = 0; i < 20; i++) expect(await refusalOf(admission.admit(changes, "eager"))).not.toBeNull();
    at(2 * MINUTE);
    const hour = dashboardLimits.changesPerHour;
    const result = await limiter.limit(hour.window, hour.subject("eager"), hour.max);
    expect(result.remaining).toBe(hour.max - 61);
  });

  it("says a team's upload refusal in the team's words", async () => {
    const { admission } = setup();
    for (let i = 0; i < 60; i++) await admission.admit([quotas.uploadsPerTeamHour], "team-1");
    const refused = await refusalOf(admission.admit([quotas.uploadsPerTeamHour], "team-1"));
    expect(refused!.publicMessage).toBe(
      "Too many uploads: a team may make at most 60 uploads an hour. Try again in 60 min.",
    );
  });

  it("lets the call through when the limiter fails (fail-open), and reports it", async () => {
    const broken: RateLimiter = {
      limit: () => Promise.reject(new Error("redis away")),
      refund: () => Promise.resolve(),
      reset: () => Promise.resolve(),
      used: () => Promise.reject(new Error("redis away")),
      warmUp: () => Promise.resolve(),
    };
    const { admission, errors } = setup(broken);
    expect(await refusalOf(admission.admit(changes, "anyone"))).toBeNull();
    expect(errors).toHaveLength(2);
  });
});

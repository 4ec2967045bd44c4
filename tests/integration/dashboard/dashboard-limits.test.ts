import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTrpcRouteHandler } from "@/server/http/trpc-route";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { DASHBOARD_ORIGIN, signUp, type TestUser } from "../../support/dashboard";

/**
 * The per-account limits on the dashboard (docs/security.md, dashboard): changes a minute, purges a
 * minute and slug checks a minute, through the tRPC route as the browser calls it. 800 purges in 17 s
 * by one account moved another tenant's cached p95 from 27 to 68 ms (issue 27).
 */
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
}, 30_000);
afterAll(() => app.close());

interface WireError {
  error: {
    json: {
      message: string;
      data: { httpStatus: number; code: string; appCode: string; retryAfter?: number | null };
    };
  };
}

interface Answer {
  status: number;
  headers: Headers;
  error: WireError["error"]["json"] | null;
}

const route = () => createTrpcRouteHandler(async () => app.services);

async function answer(response: Response): Promise<Answer> {
  const body = (await response.json()) as Partial<WireError>;
  return { status: response.status, headers: response.headers, error: body.error?.json ?? null };
}

/** A mutation as the dashboard's client posts it (one procedure, not batched). */
async function mutate(user: TestUser, procedure: string, input: unknown): Promise<Answer> {
  return answer(
    await route()(
      new Request(`${DASHBOARD_ORIGIN}/api/trpc/${procedure}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: user.cookie, origin: DASHBOARD_ORIGIN },
        body: JSON.stringify({ json: input }),
      }),
    ),
  );
}

async function query(user: TestUser, procedure: string, input: unknown): Promise<Answer> {
  const search = new URLSearchParams({ input: JSON.stringify({ json: input }) });
  return answer(
    await route()(
      new Request(`${DASHBOARD_ORIGIN}/api/trpc/${procedure}?${search}`, { headers: { cookie: user.cookie } }),
    ),
  );
}

/** A signed-up account with its team named: the onboarding is its first change. */
async function onboarded(label: string): Promise<{ user: TestUser; teamSlug: string }> {
  const user = await signUp(app.services, label);
  const slug = `${label}-${user.id.slice(0, 8).toLowerCase()}`;
  const team = await user.caller.account.completeOnboarding({ name: label, slug });
  return { user, teamSlug: team.slug };
}

function expectRefusal(refused: Answer, says: RegExp, windowSeconds: number): void {
  expect(refused.status).toBe(429);
  expect(refused.error?.data).toMatchObject({ code: "TOO_MANY_REQUESTS", appCode: "DASHBOARD_RATE_LIMITED" });
  expect(refused.error?.message).toMatch(says);
  const retryAfter = Number(refused.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(refused.error?.data.retryAfter).toBe(retryAfter);
}

describe("changes per account", () => {
  it("refuses an account's 61st change in a minute with 429, the limit and Retry-After; another account's changes and the first one's reads go on", async () => {
    // The whole test takes about 2 s; 15 s clear of the minute's edge leaves room for a slow machine.
    await clearOfWindowEdge(60_000, 15_000);
    const busy = await onboarded("busy");
    const calm = await onboarded("calm");
    for (let i = 2; i <= 60; i++) {
      const renamed = await mutate(busy.user, "team.update", { teamSlug: busy.teamSlug, name: `Busy ${i}` });
      expect(renamed.status, `change ${i}`).toBe(200);
    }
    const refused = await mutate(busy.user, "team.update", { teamSlug: busy.teamSlug, name: "One too many" });
    expectRefusal(refused, /60 changes a minute/, 60);

    // Refused before the procedure ran: nothing changed.
    const read = await query(busy.user, "team.get", { teamSlug: busy.teamSlug });
    expect(read.status).toBe(200);
    expect((await busy.user.caller.team.get({ teamSlug: busy.teamSlug })).team.name).toBe("Busy 60");
    // Another account is not held to the first one's window.
    expect((await mutate(calm.user, "team.update", { teamSlug: calm.teamSlug, name: "Calm 2" })).status).toBe(200);
  }, 60_000);

  it("holds purges to 20 a minute, while the account's other changes still pass", async () => {
    await clearOfWindowEdge(60_000, 10_000);
    const { user, teamSlug } = await onboarded("purger");
    await user.caller.project.create({ teamSlug, name: "Shop", slug: "shop" });
    for (let i = 1; i <= 20; i++) {
      const purged = await mutate(user, "cache.purge", { teamSlug, projectSlug: "shop" });
      expect(purged.status, `purge ${i}`).toBe(200);
    }
    expectRefusal(await mutate(user, "cache.purge", { teamSlug, projectSlug: "shop" }), /20 purges a minute/, 60);
    expect((await mutate(user, "team.update", { teamSlug, name: "Still allowed" })).status).toBe(200);
  }, 60_000);
});

describe("slug checks per account", () => {
  it("answers 30 slug checks a minute, then 429; another account still gets answers", async () => {
    await clearOfWindowEdge(60_000, 10_000);
    const { user } = await onboarded("prober");
    const { user: other } = await onboarded("typist");
    for (let i = 1; i <= 30; i++) {
      const checked = await query(user, "account.slugAvailable", { slug: `probe-${i}` });
      expect(checked.status, `check ${i}`).toBe(200);
    }
    expectRefusal(await query(user, "account.slugAvailable", { slug: "probe-31" }), /30 slug checks a minute/, 60);
    expect((await query(other, "account.slugAvailable", { slug: "probe-31" })).status).toBe(200);
  }, 60_000);
});

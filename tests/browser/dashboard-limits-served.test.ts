import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServedApp, type ServedApp } from "../support/browser";
import { clearOfWindowEdge } from "../support/clock";
import { servedDashboard } from "../support/served-dashboard";

/**
 * The dashboard's limits as a browser meets them from the built app (`npm start`): a quota refusal, the
 * per-account change and slug-check windows with their Retry-After header, a mutation from another
 * site's page, and /api/metrics without its token. The handler-level tests
 * (tests/integration/dashboard/) count exactly; this one checks what survives Next's server.
 */
let app: ServedApp;
const METRICS_TOKEN = "metrics-token-of-this-test";

beforeAll(async () => {
  app = await startServedApp({ OPTSTUFF_REGISTRATION: "open", OPTSTUFF_METRICS_TOKEN: METRICS_TOKEN });
}, 120_000);
afterAll(() => app?.stop());

interface WireError {
  error?: { json: { message: string; data: { httpStatus: number; appCode?: string; retryAfter?: number | null } } };
}

const dashboard = () => servedDashboard(app.baseUrl);
const signUp = (label: string) => dashboard().signUp(label);
const mutate = (cookie: string, procedure: string, input: unknown, origin?: string) =>
  dashboard().mutate(cookie, procedure, input, origin);
const query = (cookie: string, procedure: string, input: unknown) => dashboard().query(cookie, procedure, input);

async function refusal(response: Response) {
  const body = (await response.json()) as WireError;
  return { status: response.status, retryAfter: response.headers.get("retry-after"), error: body.error?.json };
}

describe("the dashboard's limits, served", () => {
  it("refuses the 51st project with 409 and the quota, then the 61st change of the minute with 429 and Retry-After", async () => {
    // The whole test takes 3-4 s under next start; 15 s clear of the minute's edge leaves room for a slow machine.
    await clearOfWindowEdge(60_000, 15_000);
    const cookie = await signUp("quota");
    const team = `quota-${Date.now().toString(36)}`;
    expect((await mutate(cookie, "account.completeOnboarding", { name: "Quota", slug: team })).status).toBe(200);
    for (let i = 1; i <= 50; i++) {
      const made = await mutate(cookie, "project.create", { teamSlug: team, name: `P ${i}`, slug: `p-${i}` });
      expect(made.status, `project ${i}`).toBe(200);
    }
    const full = await refusal(
      await mutate(cookie, "project.create", { teamSlug: team, name: "Extra", slug: "extra" }),
    );
    expect(full.status).toBe(409);
    expect(full.error?.data.appCode).toBe("QUOTA_REACHED");
    expect(full.error?.message).toMatch(/at most 50 projects/);
    // 52 changes so far (the onboarding, 50 projects, the refused one): 8 more pass, the 61st does not.
    for (let i = 53; i <= 60; i++)
      expect((await mutate(cookie, "team.update", { teamSlug: team, name: `Quota ${i}` })).status, `change ${i}`).toBe(
        200,
      );
    const limited = await refusal(await mutate(cookie, "team.update", { teamSlug: team, name: "One too many" }));
    expect(limited.status).toBe(429);
    expect(limited.error?.data.appCode).toBe("DASHBOARD_RATE_LIMITED");
    expect(limited.error?.message).toMatch(/60 changes a minute/);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);
    // Reads go on.
    expect((await query(cookie, "team.get", { teamSlug: team })).status).toBe(200);
  }, 90_000);

  it("answers 30 slug checks a minute, then 429 with Retry-After", async () => {
    await clearOfWindowEdge(60_000, 10_000);
    const cookie = await signUp("prober");
    for (let i = 1; i <= 30; i++)
      expect((await query(cookie, "account.slugAvailable", { slug: `probe-${i}` })).status, `check ${i}`).toBe(200);
    const limited = await refusal(await query(cookie, "account.slugAvailable", { slug: "probe-31" }));
    expect(limited.status).toBe(429);
    expect(limited.error?.message).toMatch(/30 slug checks a minute/);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
  }, 60_000);

  it("refuses a mutation from another site's page, and /api/metrics without its token", async () => {
    const cookie = await signUp("crosssite");
    const crossSite = await mutate(
      cookie,
      "account.createTeam",
      { name: "Evil", slug: "evil-team" },
      "https://evil.example",
    );
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { code: string }).code).toBe("CROSS_SITE_REQUEST");
    const metrics = await fetch(`${app.baseUrl}/api/metrics`, { headers: { authorization: "Bearer guessed" } });
    expect(metrics.status).toBe(401);
    expect(((await metrics.json()) as { code: string }).code).toBe("METRICS_UNAUTHORIZED");
    const scraped = await fetch(`${app.baseUrl}/api/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("optstuff_");
  }, 30_000);
});

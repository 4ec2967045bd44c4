import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { signUp, type TestUser } from "../../support/dashboard";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * One definition per word on a usage page, and its figures add up (issue 48): every request is served
 * (transformed for it), cached (a cache tier, or not modified), refused or failed; delivered, as
 * metered, is served plus cached; of those, images carry one (not a 304, not info's JSON), and the
 * formats' images add up to them; the savings' served and cached are the outcomes'.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
const sent = { transforms: 0, hits: 0, notModified: 0, json: 0, refused: 0, failed: 0 };

const path = (key: { publicKey: string; secretKey: string }, operations: string, source = "local/photo.jpg") =>
  buildSignedUrl({ baseUrl: "http://x", projectSlug: "site", ...key, operations, source }).slice("http://x".length);

beforeAll(async () => {
  // The file counts what it serves by the UTC day: it starts clear of midnight.
  await clearOfWindowEdge(86_400_000, 120_000);
  app = await createTestApp({ env: NO_REDIS });
  owner = await signUp(app.services, "reconcile");
  teamSlug = (
    await owner.caller.account.completeOnboarding({ name: "Sums", slug: `sums-${owner.id.slice(0, 6).toLowerCase()}` })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Site", slug: "site", allowedSourceHosts: ["local"] });
  const key = await owner.caller.apiKey.create({ teamSlug, projectSlug: "site", name: "web", expiresAt: null });
  const status = async (url: string, init?: RequestInit) => {
    const response = await app.fetch(url, init);
    await response.arrayBuffer();
    return response;
  };
  for (const width of [30, 31, 32]) {
    expect((await status(path(key, `w_${width}`))).status).toBe(200);
    sent.transforms++;
  }
  const again = await status(path(key, "w_30"));
  expect(again.status).toBe(200);
  sent.hits++;
  const etag = again.headers.get("etag")!;
  expect((await status(path(key, "w_30"), { headers: { "if-none-match": etag } })).status).toBe(304);
  sent.notModified++;
  expect((await status(path(key, "info"))).status).toBe(200);
  sent.json++;
  expect((await status(path(key, "w_33").replace(/sig=[^&]+/, `sig=${"A".repeat(32)}`))).status).toBe(403);
  sent.refused++;
  expect((await status(path(key, "w_34", "local/no-such-image.jpg"))).status).toBe(404);
  sent.failed++;
  await app.settled();
  await app.services.jobs.cron.flushUsage({ safetyLagMs: -60_000 });
}, 180_000);

afterAll(() => app?.close());

describe("a usage page's figures", () => {
  it("add up, each word meaning one thing", async () => {
    const page = await owner.caller.usage.project({ teamSlug, projectSlug: "site", range: { preset: "recent" } });
    const { served, cached, refused, failed, all } = page.outcomes.totals;
    expect(all).toBe(served + cached + refused + failed);
    expect({ served, cached, refused, failed }).toEqual({
      served: sent.transforms + sent.json,
      cached: sent.hits + sent.notModified,
      refused: sent.refused,
      failed: sent.failed,
    });
    // Delivered, as metered, is every served and cached answer; the daily series adds up to it.
    expect(page.totals.requests).toBe(served + cached);
    expect(page.series.reduce((sum, day) => sum + day.requests, 0)).toBe(page.totals.requests);
    // The savings' work is the outcomes' own; images are the answers with one, by format.
    expect(page.savings.work).toMatchObject({ transforms: served, spared: cached });
    expect(page.savings.totals.delivered).toBe(served + cached - sent.notModified - sent.json);
    expect(page.savings.byFormat.reduce((sum, format) => sum + format.delivered, 0)).toBe(
      page.savings.totals.delivered,
    );
    // Opened on the first request's day: a new project's traffic fills the chart.
    expect(page.range.from).toBe(page.range.to);
  });
});

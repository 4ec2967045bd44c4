import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * The usage page's quality modes: images served through the real route, counted by the request log's
 * statistics, read back through the procedure, and compared exactly with what each request reported.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
let key: { publicKey: string; secretKey: string };
const projectSlug = "modes";
const scope = () => ({ teamSlug, projectSlug });
const WEBP = "image/avif;q=0,image/webp,*/*";

const get = (operations: string, headers: Record<string, string> = { accept: WEBP }) => {
  const url = buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations, source: "local/photo.jpg" });
  return app.fetch(url.slice(url.indexOf("/api/v1/")), { headers });
};

beforeAll(async () => {
  app = await createTestApp({ env: NO_REDIS });
  owner = await signUp(app.services, "modes");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Modes",
      slug: `modes-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Modes", slug: projectSlug, allowedSourceHosts: ["local"] });
  key = await owner.caller.apiKey.create({ ...scope(), name: "modes", expiresAt: null });
  const asked = [
    "w_40,f_webp",
    "w_40,f_webp", // a hit: counted, but its original is not fetched
    "w_40,f_webp,q_60",
    "w_40,f_webp,q_auto",
    "w_40,f_webp,q_auto", // a hit carries the score its search reached
    "w_40,f_jpg,q_auto:eco",
    "w_40,f_best",
    "w_40,f_jpg,maxbytes_2000",
    "placeholder",
  ];
  for (const operations of asked) expect((await get(operations)).status, operations).toBe(200);
  // Not images: JSON, a 304, a refusal.
  expect((await get("info")).status).toBe(200);
  const etag = (await get("w_40,f_webp")).headers.get("etag")!;
  expect((await get("w_40,f_webp", { accept: WEBP, "if-none-match": etag })).status).toBe(304);
  expect((await get("w_40,q_101")).status).toBe(400);
  // The project's default mode: a URL naming no quality is searched, and counted as q_auto.
  await owner.caller.preset.setDefaultQuality({ ...scope(), defaultQuality: "low" });
  expect((await get("w_41,f_webp")).headers.get("x-optstuff-quality")).not.toBeNull();
  await app.settled();
}, 60_000);
afterAll(() => app.close());

interface Expected {
  requests: number;
  outputBytes: number;
  source: number;
  measuredOutput: number;
  scores: number[];
}

/** What the outcomes say, grouped as the page groups them. */
function expectedModes(outcomes: RequestOutcome[]) {
  const modes = new Map<string, Expected>();
  for (const o of outcomes) {
    if (o.status !== "success" || !o.qualityMode) continue;
    const id = `${o.qualityMode}|${o.outputFormat}`;
    const row = modes.get(id) ?? { requests: 0, outputBytes: 0, source: 0, measuredOutput: 0, scores: [] };
    row.requests++;
    row.outputBytes += o.outputBytes!;
    if (o.sourceBytes !== undefined) {
      row.source += o.sourceBytes;
      row.measuredOutput += o.outputBytes!;
    }
    if (o.measured) row.scores.push(o.measured.score);
    modes.set(id, row);
  }
  return modes;
}

describe("quality modes on the usage page", () => {
  it("names each mode and format the images were served in, and only images", async () => {
    const { qualityModes } = await owner.caller.usage.project({ ...scope(), range: { preset: "7d" } });
    expect(qualityModes.map((r) => `${r.mode} ${r.format} ${r.requests}`).sort()).toEqual(
      [
        "fixed webp 4", // two w_40, the q_60, and the request before the 304
        "q_auto:good webp 2",
        "q_auto:eco jpeg 1",
        `f_best:good ${app.outcomes.find((o) => o.operations === "w_40,f_best")!.outputFormat} 1`,
        "maxbytes jpeg 1",
        "placeholder jpeg 1",
        "q_auto:low webp 1",
      ].sort(),
    );
  });

  it("agrees exactly with what each request reported: bytes, savings and scores", async () => {
    const { qualityModes } = await owner.caller.usage.project({ ...scope(), range: { preset: "7d" } });
    const expected = expectedModes(app.outcomes);
    expect(qualityModes).toHaveLength(expected.size);
    for (const row of qualityModes) {
      const want = expected.get(`${row.mode}|${row.format}`)!;
      expect(row.requests, row.mode).toBe(want.requests);
      expect(row.meanBytes, row.mode).toBeCloseTo(want.outputBytes / want.requests, 9);
      expect(row.savedShare, row.mode).toBeCloseTo(1 - want.measuredOutput / want.source, 9);
      if (want.scores.length === 0) {
        expect(row.meanScore).toBeNull();
        expect(row.minScore).toBeNull();
      } else {
        expect(row.meanScore, row.mode).toBeCloseTo(want.scores.reduce((a, b) => a + b) / want.scores.length, 6);
        expect(row.minScore, row.mode).toBeCloseTo(Math.min(...want.scores), 6);
      }
    }
    // Most served first; a q_auto hit brought its score along, so both answers are scored.
    expect(qualityModes[0]!.mode).toBe("fixed");
    const good = qualityModes.find((r) => r.mode === "q_auto:good")!;
    expect(expected.get("q_auto:good|webp")!.scores).toHaveLength(2);
    expect(good.minScore).toBeGreaterThanOrEqual(80);
  });

  it("is empty for a range without traffic", async () => {
    const range = { from: "2020-01-01", to: "2020-01-07" };
    expect((await owner.caller.usage.project({ ...scope(), range })).qualityModes).toEqual([]);
  });
});

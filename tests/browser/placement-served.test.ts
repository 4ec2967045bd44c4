import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { ServedApp } from "../support/browser";
import { filterBombSvg, pixelBombPng, scanBombJpeg } from "../support/hostile";
import { makeJpeg } from "../support/images";
import { serveLocalSources } from "../support/served-local-sources";

/**
 * The default placement against the built app (tests/integration/delivery/placement.test.ts through the
 * handler): a team's burst of ordinary stills runs in the server's process, each hostile class in a
 * transform process with its contract answer, and /api/metrics says where each went, under `npm start`
 * and under `next start`.
 */
const TIMEOUT_MS = 3000;

/** optstuff_transform_placements as scraped: "in-process" and each isolation reason, with its count. */
async function placements(app: ServedApp): Promise<Record<string, number>> {
  const text = await (await app.metrics()).text();
  const counts: Record<string, number> = {};
  for (const [, where, reason, count] of text.matchAll(
    /^optstuff_transform_placements\{where="([^"]+)",reason="([^"]*)"\} (\d+)$/gm,
  ))
    counts[where === "in-process" ? where : reason!] = Number(count);
  return counts;
}

const change = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([name, count]) => [name, count - (before[name] ?? 0)] as const)
      .filter(([, added]) => added !== 0),
  );

describe.each(["npm start", "next start"] as const)("transforms placed by input, served (%s)", (server) => {
  const served = serveLocalSources(
    async () => ({
      "photo.jpg": await makeJpeg(1200, 800),
      "scans.jpg": scanBombJpeg(2048, 28_500),
      "bomb.png": pixelBombPng(),
      "filters.svg": filterBombSvg(7000, 4),
    }),
    { OPTSTUFF_TRANSFORM_ISOLATION: "auto", OPTSTUFF_TRANSFORM_TIMEOUT_MS: String(TIMEOUT_MS) },
    server,
  );
  const signed = served.signed;

  it("runs a team's burst of stills in the server's process, and /api/metrics counts each there", async () => {
    const before = await placements(served.app);
    const widths = [301, 302, 303, 304, 305, 306];
    const answers = await Promise.all(widths.map((width) => fetch(signed(`w_${width},f_webp`, "local/photo.jpg"))));
    expect(answers.map((answer) => answer.status)).toEqual(widths.map(() => 200));
    const decoded = await Promise.all(
      answers.map(async (answer) => sharp(Buffer.from(await answer.arrayBuffer())).metadata()),
    );
    expect(decoded.map((meta) => [meta.format, meta.width])).toEqual(widths.map((width) => ["webp", width]));
    expect(change(before, await placements(served.app))).toEqual({ "in-process": widths.length });
  });

  it.each([
    ["a scan-bomb JPEG", "local/scans.jpg", "w_100,f_webp", "jpeg scans", ["TRANSFORM_TIMEOUT"]],
    ["a decompression-bomb PNG", "local/bomb.png", "w_100", "input pixels", ["IMAGE_TOO_LARGE"]],
    ["an SVG filter bomb", "local/filters.svg", "f_png", "format", ["TRANSFORM_TIMEOUT", "TRANSFORM_MEMORY_EXCEEDED"]],
  ])(
    "sends %s to a transform process, which answers as the contract says",
    async (_name, source, operations, reason, codes) => {
      const before = await placements(served.app);
      const started = performance.now();
      const response = await fetch(signed(operations, source));
      const body = (await response.json()) as { code: string; requestId: string };
      expect(codes).toContain(body.code);
      expect([413, 504]).toContain(response.status);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(body.requestId).toBe(response.headers.get("x-request-id"));
      // Stopped at the budget by a kill, not after the seconds the native call would take.
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 5000);
      expect(change(before, await placements(served.app))).toEqual({ [reason]: 1 });
    },
  );
});

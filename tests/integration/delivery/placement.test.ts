import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricsRouteHandler } from "@/server/http/metrics-route";
import { createTestApp, type TestApp } from "../../support/app";
import { filterBombSvg, pixelBombPng, scanBombJpeg } from "../../support/hostile";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

/**
 * The default placement (OPTSTUFF_TRANSFORM_ISOLATION=auto off Vercel), through the route: ordinary
 * stills are transformed in the server's process, and each hostile class of the contract tests lands
 * in a transform process, where it is stopped as before and answered with its contract status.
 */
let app: TestApp;
let origin: Origin;
const TIMEOUT_MS = 3000;
const METRICS_TOKEN = "placement-metrics-token";

beforeAll(async () => {
  const photo = sharp({
    create: {
      width: 1200,
      height: 800,
      channels: 3,
      background: "#6a8",
      noise: { type: "gaussian", mean: 110, sigma: 40 },
    },
  });
  origin = await startOrigin({
    "/photo.jpg": serveBytes(await photo.clone().jpeg({ progressive: true, mozjpeg: true }).toBuffer(), "image/jpeg"),
    "/photo.png": serveBytes(await photo.clone().png().toBuffer(), "image/png"),
    "/small.jpg": serveBytes(await photo.clone().resize(64, 64).jpeg().toBuffer(), "image/jpeg"),
    "/scans.jpg": serveBytes(scanBombJpeg(2048, 28_500), "image/jpeg"),
    "/bomb.png": serveBytes(pixelBombPng(), "image/png"),
    "/filters.svg": serveBytes(filterBombSvg(7000, 4), "image/svg+xml"),
  });
  app = await createTestApp({
    sourceHosts: [origin.host],
    env: {
      OPTSTUFF_TRANSFORM_ISOLATION: "auto",
      OPTSTUFF_TRANSFORM_TIMEOUT_MS: String(TIMEOUT_MS),
      // The AVIF attack of the contract tests: an 8192² enlargement the output limits let through.
      OPTSTUFF_MAX_OUTPUT_PIXELS: String(8192 * 8192),
      OPTSTUFF_MAX_AVIF_PIXELS: String(8192 * 8192),
      OPTSTUFF_METRICS_TOKEN: METRICS_TOKEN,
    },
  });
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const placed = () => app.services.delivery.transforms.placed!();

/** The answer to one request, and where its transform ran (the counters' change). */
async function request(path: string, operations: string) {
  const before = placed();
  const started = performance.now();
  const response = await app.fetch(app.signedPath(operations, `http://${origin.host}${path}`));
  const ms = performance.now() - started;
  const after = placed();
  const reasons = Object.keys(after.isolated).filter((r) => after.isolated[r] !== before.isolated[r]);
  const where = after.inProcess > before.inProcess ? "in-process" : reasons.join(",");
  const body = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    where,
    body,
    ms,
    code: response.ok ? null : (JSON.parse(body.toString()) as { code: string }).code,
  };
}

describe("transforms placed by input", () => {
  it("says so, and transforms ordinary stills in the server's process", async () => {
    expect(app.services.delivery.transforms.placement).toBe("by-input");
    for (const [path, operations, format] of [
      ["/photo.jpg", "w_300,f_webp", "webp"],
      ["/photo.png", "w_200,f_jpeg", "jpeg"],
      ["/photo.jpg", "s_200x200,g_attention,f_avif", "heif"],
    ] as const) {
      const answer = await request(path, operations);
      expect({ path, operations, status: answer.status, where: answer.where }).toEqual({
        path,
        operations,
        status: 200,
        where: "in-process",
      });
      const decoded = await sharp(answer.body).metadata();
      expect([decoded.format, decoded.width]).toEqual([format, operations.startsWith("w_300") ? 300 : 200]);
    }
  });

  it("runs a team's burst in the server's process while no other team has work, and says where in /api/metrics", async () => {
    // Six at once from one team: its first job and its extra ones, none of which has anyone to give way to.
    const before = placed();
    const answers = await Promise.all(
      [301, 302, 303, 304, 305, 306].map((width) =>
        app.fetch(app.signedPath(`w_${width},f_webp`, `http://${origin.host}/photo.jpg`)),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const after = placed();
    expect({ inProcess: after.inProcess - before.inProcess, isolated: after.isolated }).toEqual({
      inProcess: 6,
      isolated: before.isolated,
    });
    const metrics = await createMetricsRouteHandler(async () => app.services)(
      new Request("http://optstuff.test/api/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }),
    );
    const text = await metrics.text();
    expect(text).toContain(`optstuff_transform_placements{where="in-process",reason=""} ${after.inProcess}`);
  });

  it.each([
    ["a scan-bomb JPEG", "/scans.jpg", "w_100,f_webp", "jpeg scans", [504], ["TRANSFORM_TIMEOUT"]],
    ["a decompression-bomb PNG", "/bomb.png", "w_100", "input pixels", [413], ["IMAGE_TOO_LARGE"]],
    [
      "an SVG filter bomb",
      "/filters.svg",
      "f_png",
      "format",
      [504, 413],
      ["TRANSFORM_TIMEOUT", "TRANSFORM_MEMORY_EXCEEDED"],
    ],
    [
      "an 8192² AVIF enlargement",
      "/small.jpg",
      "s_8192x8192,fit_fill,enlarge,f_avif,q_99",
      "output pixels",
      [504, 413],
      ["TRANSFORM_TIMEOUT", "TRANSFORM_MEMORY_EXCEEDED"],
    ],
  ])(
    "sends %s to a transform process, which stops it as the contract says",
    async (_name, path, operations, reason, statuses, codes) => {
      const answer = await request(path, operations);
      expect(answer.where).toBe(reason);
      expect(statuses).toContain(answer.status);
      expect(codes).toContain(answer.code);
      // Stopped at the budget by a kill, not after the seconds the native call would take.
      expect(answer.ms).toBeLessThan(TIMEOUT_MS + 5000);
    },
  );
});

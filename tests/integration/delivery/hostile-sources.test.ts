import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app";
import { pixelBombPng, scriptedSvg } from "../../support/hostile";
import { makeJpeg, makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

let app: TestApp;
let origin: Origin;
let rssBefore = 0;
const MAX_BYTES = 2 * 1024 * 1024;

beforeAll(async () => {
  const jpeg = await makeJpeg(800, 600);
  origin = await startOrigin({
    "/ok.png": serveBytes(await makePng(64, 64), "image/png"),
    "/bomb.png": serveBytes(pixelBombPng(), "image/png"),
    "/huge.bin": serveBytes(Buffer.alloc(MAX_BYTES + 1, 1), "image/jpeg"),
    "/chunked-huge": (_req, res) => {
      // No Content-Length: the cap must be enforced while streaming.
      res.writeHead(200, { "Content-Type": "image/jpeg" });
      const block = Buffer.alloc(64 * 1024, 7);
      let sent = 0;
      const pump = () => {
        while (sent < MAX_BYTES * 4 && res.write(block)) sent += block.length;
        if (sent < MAX_BYTES * 4 && !res.destroyed) res.once("drain", pump);
        else res.end();
      };
      pump();
    },
    "/truncated.jpg": serveBytes(jpeg.subarray(0, Math.floor(jpeg.length / 2)), "image/jpeg"),
    "/corrupt.jpg": serveBytes(Buffer.concat([jpeg.subarray(0, 200), Buffer.alloc(4000, 0x5a)]), "image/jpeg"),
    "/text.jpg": serveBytes(Buffer.from("<html>not an image</html>"), "image/jpeg"),
    "/script.svg": serveBytes(scriptedSvg, "image/svg+xml"),
    "/silent": () => {
      /* accepts the request, never answers */
    },
    "/endless": (_req, res) => {
      res.writeHead(200, { "Content-Type": "image/png" });
      res.write(Buffer.alloc(10));
      /* never ends the body */
    },
  });
  app = await createTestApp({
    sourceHosts: [origin.host],
    env: {
      OPTSTUFF_MAX_SOURCE_BYTES: String(MAX_BYTES),
      OPTSTUFF_FETCH_TIMEOUT_MS: "800",
      OPTSTUFF_MAX_FRAMES: "100",
      OPTSTUFF_TRANSFORM_TIMEOUT_MS: "10000",
    },
  });
  // Warm the pipeline once so the baseline includes libvips' own start-up allocations.
  await app.fetch(app.signedPath("w_32", `http://${origin.host}/ok.png`));
  rssBefore = process.memoryUsage().rss;
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function statusOf(path: string, operations = "w_100"): Promise<{ status: number; code: string }> {
  const response = await app.fetch(app.signedPath(operations, `http://${origin.host}${path}`));
  const body = (await response.json()) as { code: string };
  expect(response.headers.get("cache-control")).toBe("no-store");
  return { status: response.status, code: body.code };
}

describe("hostile sources through the route", () => {
  it.each([
    ["a pixel bomb", "/bomb.png", 413, "IMAGE_TOO_LARGE"],
    ["a source over the byte cap (Content-Length)", "/huge.bin", 413, "SOURCE_TOO_LARGE"],
    ["a chunked source over the byte cap", "/chunked-huge", 413, "SOURCE_TOO_LARGE"],
    ["a truncated JPEG", "/truncated.jpg", 422, "IMAGE_DECODE_FAILED"],
    ["a non-image", "/text.jpg", 415, "UNSUPPORTED_IMAGE"],
    ["an origin that never answers", "/silent", 504, "SOURCE_TIMEOUT"],
    ["an origin that never ends its body", "/endless", 504, "SOURCE_TIMEOUT"],
  ])("answers %s with its contract status", async (_name, path, status, code) => {
    expect(await statusOf(path)).toEqual({ status, code });
  });

  it("refuses corrupt image data as undecodable, never as a server error", async () => {
    const { status } = await statusOf("/corrupt.jpg");
    expect([415, 422]).toContain(status);
  });

  it("serves an SVG carrying script as SVG without it, under default-src 'none', and rasterises it when asked", async () => {
    const passthrough = await app.fetch(app.signedPath("_", `http://${origin.host}/script.svg`));
    expect(passthrough.status).toBe(200);
    expect(passthrough.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(passthrough.headers.get("content-security-policy")).toBe("default-src 'none'");
    const served = await passthrough.text();
    expect(served).toContain("<svg");
    expect(served).not.toMatch(/<script|onload|javascript:/i);
    const raster = await app.fetch(app.signedPath("f_png,w_50", `http://${origin.host}/script.svg`));
    expect(raster.status).toBe(200);
    const meta = await sharp(Buffer.from(await raster.arrayBuffer())).metadata();
    expect([meta.format, meta.width]).toEqual(["png", 50]);
  });

  it("keeps serving after the hostile batch, with bounded memory", async () => {
    const response = await app.fetch(app.signedPath("w_32,f_webp", `http://${origin.host}/ok.png`));
    expect(response.status).toBe(200);
    // A decoded 100000×100000 bomb would need 30 GB; anything near that means a limit was skipped.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
  });
});

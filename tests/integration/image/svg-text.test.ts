import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, NO_REDIS, type TestApp } from "../../support/app";
import type { TestSettings } from "../../support/settings";

/**
 * SVG <text> is drawn with the bundled fonts, whatever the machine has. A machine without fonts
 * (Vercel's functions; here a fontconfig file that lists none) drew every glyph as the same small
 * missing-glyph box. A capital I at 40 px is a thin stroke about 29 px tall; the box is 8 × 12.
 */
const root = mkdtempSync(path.join(os.tmpdir(), "optstuff-svg-text-"));
const NO_FONTS = path.join(root, "no-fonts.conf");
writeFileSync(
  NO_FONTS,
  '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig></fontconfig>\n',
);
// This process too is a machine without fonts, until the app configures its own.
process.env.FONTCONFIG_FILE = NO_FONTS;
writeFileSync(
  path.join(root, "letter.svg"),
  '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="60"><rect width="100" height="60" fill="#fff"/>' +
    '<text x="40" y="45" font-family="Helvetica, Arial, sans-serif" font-size="40" fill="#000">I</text></svg>',
);

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

/** The transform processes inherit this process's FONTCONFIG_FILE (env.ts: transformProcessEnv). */
async function appWith(env: TestSettings): Promise<TestApp> {
  const app = await createTestApp({
    env: { ...NO_REDIS, OPTSTUFF_LOCAL_SOURCE_ROOT: root, OPTSTUFF_RESULT_CACHE_BYTES: "0", ...env },
  });
  apps.push(app);
  return app;
}

/** The dark pixels' bounding box in the rendered PNG: [width, height]. */
async function inkOf(app: TestApp): Promise<[number, number]> {
  const response = await app.fetch(app.signedPath("f_png", "local/letter.svg"));
  expect(response.status).toBe(200);
  const { data, info } = await sharp(Buffer.from(await response.arrayBuffer()))
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let [left, right, top, bottom] = [info.width, -1, info.height, -1];
  for (let y = 0; y < info.height; y++)
    for (let x = 0; x < info.width; x++)
      if (data[y * info.width + x]! < 128) {
        [left, right, top, bottom] = [Math.min(left, x), Math.max(right, x), Math.min(top, y), Math.max(bottom, y)];
      }
  return [right - left + 1, bottom - top + 1];
}

describe("SVG text on a machine without fonts", () => {
  let withoutFonts: TestApp;
  beforeAll(async () => {
    withoutFonts = await appWith({ OPTSTUFF_SVG_FONTS: "system", OPTSTUFF_TRANSFORM_ISOLATION: "process" });
  }, 30_000);

  it("is a missing-glyph box with the machine's fonts (the failure this guards against)", async () => {
    const [width, height] = await inkOf(withoutFonts);
    expect(height).toBeLessThan(20);
    expect(width).toBeGreaterThan(5);
  });

  it("is the letter in the bundled fonts, in the transform processes", async () => {
    const app = await appWith({ OPTSTUFF_SVG_FONTS: "bundled", OPTSTUFF_TRANSFORM_ISOLATION: "process" });
    const [width, height] = await inkOf(app);
    expect(height).toBeGreaterThanOrEqual(26);
    expect(width).toBeLessThanOrEqual(6);
  });

  it("is the letter in the bundled fonts when transforms run in the server's process (Vercel)", async () => {
    const app = await appWith({ OPTSTUFF_SVG_FONTS: "bundled", OPTSTUFF_TRANSFORM_ISOLATION: "none" });
    const [width, height] = await inkOf(app);
    expect(height).toBeGreaterThanOrEqual(26);
    expect(width).toBeLessThanOrEqual(6);
  });
});

import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blurDataUrl, info, paletteCss, placeholder, signUrl } from "../../../packages/client/src/index";
import { createNuxtImageProvider, createUnpicTransformer } from "../../../packages/client/src/adapters";
import { createSigningRoute } from "../../../packages/client/src/next";
import { createTestApp, type TestApp } from "../../support/app";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

/** The kit against the real route: every URL it makes must be served, and decode as asked. */
let app: TestApp;
let origin: Origin;
let keys: { baseUrl: string; projectSlug: string; publicKey: string; secretKey: string };
/** Sends a kit-made absolute URL through the test app's route handler. */
const serve = (url: string) => {
  const { pathname, search } = new URL(url);
  return app.fetch(pathname + search);
};

beforeAll(async () => {
  origin = await startOrigin({ "/wide.png": serveBytes(await makePng(400, 200), "image/png") });
  app = await createTestApp({ sourceHosts: [origin.host] });
  keys = {
    baseUrl: "http://127.0.0.1:3000",
    projectSlug: app.projectSlug,
    publicKey: app.key.publicKey,
    secretKey: app.key.secretKey,
  };
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

describe("client kit against the image route", () => {
  it("signs URLs the route serves, with the operations the builder wrote", async () => {
    const url = await signUrl({
      ...keys,
      operations: { width: 100, format: "webp", quality: 70 },
      source: `http://${origin.host}/wide.png`,
      expiresIn: 600,
    });
    const response = await serve(url);
    expect(response.status).toBe(200);
    const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(["webp", 100, 50]);
  });

  it("makes a blur placeholder as a data URL of a tiny image", async () => {
    const dataUrl = await blurDataUrl({
      ...keys,
      source: `http://${origin.host}/wide.png`,
      fetch: (input) => serve(String(input)),
    });
    const match = /^data:image\/webp;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl);
    expect(match).not.toBeNull();
    const metadata = await sharp(Buffer.from(match![1]!, "base64")).metadata();
    expect(metadata.format).toBe("webp");
    expect(Math.max(metadata.width!, metadata.height!)).toBeLessThanOrEqual(32);
  });

  it("redirects from the signing route to a URL the route serves", async () => {
    const route = createSigningRoute({ ...keys, allowedHosts: [origin.host], format: "png" });
    const redirect = await route(
      new Request(`http://app.test/api/image?src=${encodeURIComponent(`http://${origin.host}/wide.png`)}&w=64`),
    );
    expect(redirect.status).toBe(302);
    const response = await serve(redirect.headers.get("location")!);
    expect(response.status).toBe(200);
    const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect([metadata.format, metadata.width]).toEqual(["png", 64]);
  });

  it("serves what the Nuxt Image provider and the unpic transformer ask for, through the signing route", async () => {
    const route = createSigningRoute({ ...keys, allowedHosts: [origin.host], format: "png" });
    const src = `http://${origin.host}/wide.png`;
    const through = async (path: string) => {
      const redirect = await route(new Request(`http://app.test${path}`));
      expect(redirect.status).toBe(302);
      const response = await serve(redirect.headers.get("location")!);
      expect(response.status).toBe(200);
      return sharp(Buffer.from(await response.arrayBuffer())).metadata();
    };
    // <NuxtImg width="120" height="120" fit="inside" quality="60">: Nuxt passes strings.
    const nuxt = createNuxtImageProvider().getImage(src, {
      modifiers: { width: "120", height: "120", fit: "inside", quality: "60" },
    });
    expect(nuxt.url.startsWith("/api/image?")).toBe(true);
    const inside = await through(nuxt.url);
    expect([inside.width, inside.height]).toEqual([120, 60]);
    // fit="contain" letterboxes to the whole box, as sharp (and so Nuxt's ipx) does.
    const contained = await through(
      createNuxtImageProvider().getImage(src, { modifiers: { width: 120, height: 120, fit: "contain" } }).url,
    );
    expect([contained.width, contained.height]).toEqual([120, 120]);
    // unpic lays out a 100×100 box: a cover crop of it.
    const covered = await through(createUnpicTransformer()(new URL(src), { width: 100, height: 100 }));
    expect([covered.width, covered.height]).toEqual([100, 100]);
    const wide = await through(createUnpicTransformer()(src, { width: 80 }));
    expect([wide.width, wide.height]).toEqual([80, 40]);
  });

  it("reads a source's info, writes its palette as CSS, and paints its ThumbHash as a PNG data URL of the same shape", async () => {
    const described = await info({
      ...keys,
      source: `http://${origin.host}/wide.png`,
      fetch: (input) => serve(String(input)),
    });
    expect(described).toMatchObject({ width: 400, height: 200, format: "png" });
    // One colour, half opaque: visible, so the whole palette.
    expect(described.palette).toEqual([{ colour: expect.stringMatching(/^#[0-9a-f]{6}$/), share: 1 }]);
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(described.palette[0]!.colour.slice(i, i + 2), 16));
    // makePng's red (200, 30, 30), within the quantizer's 5-bit bins.
    expect(Math.max(Math.abs(r! - 200), Math.abs(g! - 30), Math.abs(b! - 30))).toBeLessThanOrEqual(8);
    expect(paletteCss(described.palette)).toBe(
      `--palette-1: ${described.palette[0]!.colour}; background-color: var(--palette-1);`,
    );
    const dataUrl = placeholder(described.thumbhash);
    const match = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl);
    expect(match).not.toBeNull();
    const metadata = await sharp(Buffer.from(match![1]!, "base64")).metadata();
    expect(metadata.format).toBe("png");
    expect(metadata.width! / metadata.height!).toBeCloseTo(2, 0);
  });

  it("reports a failed placeholder instead of returning a broken data URL", async () => {
    await expect(
      blurDataUrl({ ...keys, source: `http://${origin.host}/missing.png`, fetch: (input) => serve(String(input)) }),
    ).rejects.toThrow(/answered 404/);
  });
});

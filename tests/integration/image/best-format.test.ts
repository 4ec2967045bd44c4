import { readFileSync } from "node:fs";
import sharp, { type Sharp } from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { EXTRA_ENCODES, MAX_ENCODES, QUALITY_LEVELS } from "@/server/image/quality/auto-quality";
import { encodeBest } from "@/server/image/quality/best-format";
import { ssimulacra2, type RawImage } from "@/server/image/quality/ssimulacra2";
import { animatedGif } from "./generate";

const BROWSER = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8";
const WEBP_ONLY = "image/webp,*/*";

/** A real photograph (tests/fixtures/ssimulacra2) and a flat graphic: panels, lines and text. */
let photo: Buffer;
let graphic: Buffer;
let translucentPhoto: Buffer;
beforeAll(async () => {
  configureSharp();
  photo = await sharp(readFileSync("tests/fixtures/ssimulacra2/source.png")).resize(512).png().toBuffer();
  graphic = await sharp(Buffer.from(screenshotSvg(480, 320)))
    .png()
    .toBuffer();
  translucentPhoto = await sharp(photo).ensureAlpha(0.6).png().toBuffer();
});

const transform = (segment: string, input: Buffer, accept: string | null) =>
  transformImage(input, parseOperations(segment), { accept }, DEFAULT_TRANSFORM_LIMITS);

async function rgb(image: Buffer | Sharp, channels: 3 | 4 = 3): Promise<RawImage> {
  const pipeline = Buffer.isBuffer(image) ? sharp(image) : image;
  const { data, info } = await (channels === 4 ? pipeline.ensureAlpha() : pipeline.removeAlpha())
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels };
}

describe("f_best", () => {
  it("answers a photograph in a format Accept allows, at the level, never larger than f_auto,q_auto", async () => {
    for (const accept of [BROWSER, WEBP_ONLY]) {
      const best = await transform("w_400,f_best", photo, accept);
      const auto = await transform("w_400,f_auto,q_auto", photo, accept);
      expect(best.negotiated).toBe(true);
      expect(accept === BROWSER ? ["avif", "webp"] : ["webp"]).toContain(best.format);
      expect((await sharp(best.body).metadata()).format).toBe(best.format === "avif" ? "heif" : best.format);
      expect(best.body.length).toBeLessThanOrEqual(auto.body.length);
      // Scored here, independently: the rendered pixels against the decoded answer.
      const score = ssimulacra2(await rgb(sharp(photo).resize(400)), await rgb(best.body));
      expect(score).toBeCloseTo(best.measured!.score, 6);
      expect(score).toBeGreaterThanOrEqual(QUALITY_LEVELS.good);
    }
  });

  it("takes q_auto's level: a lower level spends fewer bytes", async () => {
    const low = await transform("w_400,f_best,q_auto:low", photo, BROWSER);
    const best = await transform("w_400,f_best,q_auto:best", photo, BROWSER);
    expect(low.body.length).toBeLessThan(best.body.length);
    expect(low.measured!.score).toBeGreaterThanOrEqual(QUALITY_LEVELS.low);
    expect(best.measured!.score).toBeGreaterThanOrEqual(QUALITY_LEVELS.best);
  });

  it("answers flat graphics lossless when that is smallest: the pixels exactly", async () => {
    const best = await transform("f_best", graphic, WEBP_ONLY);
    const lossy = await transform("f_auto,q_auto", graphic, WEBP_ONLY);
    expect(best.format).toBe("webp");
    expect(best.measured).toEqual({ quality: 100, score: 100 });
    expect(best.body.length).toBeLessThan(lossy.body.length);
    const [decoded, source] = await Promise.all([rgb(best.body), rgb(graphic)]);
    expect(Buffer.from(decoded.data).equals(Buffer.from(source.data))).toBe(true);
  });

  it("without WebP or AVIF in Accept: JPEG for an opaque photograph, PNG where there is transparency", async () => {
    const opaque = await transform("w_400,f_best", photo, "image/*");
    expect(opaque.format).toBe("jpeg");
    // f_auto keeps the PNG source's format there: f_best's JPEG at the same level is far smaller.
    const auto = await transform("w_400,f_auto,q_auto", photo, "image/*");
    expect(auto.format).toBe("png");
    expect(opaque.body.length).toBeLessThan(auto.body.length / 3);

    const translucent = await transform("w_400,f_best", translucentPhoto, "image/*");
    expect(translucent.format).toBe("png");
    const decoded = await rgb(translucent.body, 4);
    expect(decoded.data[3]).toBe(153);
  });

  it.each(["f_best", "grayscale,f_best"])(
    "%s answers a grey graphic never larger than f_auto; with transparency, a PNG of its pixels exactly",
    async (segment) => {
      const grey = await sharp(graphic).grayscale().removeAlpha().png().toBuffer();
      const auto = segment.replace("f_best", "f_auto");
      const opaque = await transform(segment, grey, "image/*");
      expect(opaque.body.length).toBeLessThanOrEqual((await transform(auto, grey, "image/*")).body.length);

      const translucent = await sharp(grey).ensureAlpha(0.5).png().toBuffer();
      const best = await transform(segment, translucent, "image/*");
      const fromAuto = await transform(auto, translucent, "image/*");
      expect([best.format, fromAuto.format]).toEqual(["png", "png"]);
      expect(best.body.length).toBeLessThanOrEqual(fromAuto.body.length);
      const [decoded, source] = await Promise.all([rgb(best.body, 4), rgb(translucent, 4)]);
      expect(Buffer.from(decoded.data).equals(Buffer.from(source.data))).toBe(true);
    },
  );

  it("spends at most its own allowance of scored encodes, and one lossless encode for flat graphics", async () => {
    for (const [input, accept] of [
      [photo, BROWSER],
      [graphic, BROWSER],
      [photo, WEBP_ONLY],
      [graphic, "image/*"],
    ] as const) {
      const best = await encodeBest(
        {
          pixels: sharp(input),
          primary: accept === "image/*" ? "png" : accept === BROWSER ? "avif" : "webp",
          accepts: accept === "image/*" ? "other" : accept === BROWSER ? "avif" : "webp",
          level: "good",
          ops: {},
        },
        DEFAULT_TRANSFORM_LIMITS,
      );
      expect(best.encodes).toBeGreaterThanOrEqual(1);
      // The default quality's encode, for the knee, when the level is out of every format's reach.
      const knee = best.measured?.unreached ? 1 : 0;
      expect(best.encodes).toBeLessThanOrEqual(MAX_ENCODES + EXTRA_ENCODES + 2 + knee + (input === graphic ? 1 : 0));
    }
  });

  it("keeps an animation's frames, in the format f_auto gives it, at the format's default quality", async () => {
    const gif = await animatedGif(40, 40, [
      [255, 0, 0],
      [0, 0, 255],
    ]);
    const result = await transform("f_best", gif, BROWSER);
    expect(result).toMatchObject({ format: "webp", negotiated: true });
    expect(result.measured).toBeUndefined();
    expect((await sharp(result.body, { animated: true }).metadata()).pages).toBe(2);
  });
});

/** A dashboard-like screenshot: few colours, hard edges, anti-aliased text. */
function screenshotSvg(width: number, height: number): string {
  const rows = Array.from(
    { length: 8 },
    (_, i) =>
      `<rect x="24" y="${70 + i * 28}" width="${width - 48}" height="22" fill="${i % 2 ? "#f4f6fa" : "#ffffff"}"/>` +
      `<text x="32" y="${86 + i * 28}" font-family="sans-serif" font-size="13" fill="#334155">Request ${i + 1} · image/webp · 200</text>`,
  ).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#ffffff"/>
    <rect width="100%" height="48" fill="#1e293b"/>
    <text x="24" y="31" font-family="sans-serif" font-size="18" fill="#f8fafc">OptStuff · Usage</text>
    <circle cx="${width - 36}" cy="24" r="12" fill="#38bdf8"/>
    ${rows}
  </svg>`;
}

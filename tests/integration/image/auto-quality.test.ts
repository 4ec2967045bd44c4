import { readFileSync } from "node:fs";
import sharp, { type Sharp } from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { ssimulacra2 } from "@/server/image/quality/ssimulacra2";
import { animatedGif } from "./generate";

/** A real photograph (tests/fixtures/ssimulacra2), scaled up so that encoders see a page-sized image. */
let photo: Buffer;
beforeAll(async () => {
  configureSharp();
  photo = await sharp(readFileSync("tests/fixtures/ssimulacra2/source.png")).resize(512).png().toBuffer();
});

const transform = (segment: string, input = photo, accept: string | null = null) =>
  transformImage(input, parseOperations(segment), { accept }, DEFAULT_TRANSFORM_LIMITS);

async function raw(image: Buffer | Sharp) {
  const { data, info } = await (Buffer.isBuffer(image) ? sharp(image) : image)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 as const };
}

describe("q_auto", () => {
  it.each([
    ["f_webp", "webp"],
    ["f_jpg", "jpeg"],
    ["f_avif", "avif"],
  ])("with %s serves an encode at the quality it reports, whose score is the one it reports", async (token, format) => {
    const result = await transform(`w_400,q_auto,${token}`);
    expect(result.format).toBe(format);
    const { quality, score } = result.measured!;
    // Scored independently: the same pixels, rendered without an encoder, against the decoded answer.
    const rendered = await raw(sharp(photo).resize(400));
    expect(ssimulacra2(rendered, await raw(result.body))).toBeCloseTo(score, 6);
    // The answer is exactly the encode at the reported quality.
    const fixed = await transform(`w_400,q_${quality},${token}`);
    expect(result.body.equals(fixed.body)).toBe(true);
    // Reached the level's target (80), or was served from the top of the range having not.
    expect(score >= 80 || quality >= 90).toBe(true);
  });

  it("spends fewer bytes at a lower level, more at a higher one", async () => {
    const [low, good, best] = await Promise.all(
      ["low", "good", "best"].map((level) => transform(`w_400,q_auto:${level},f_webp`)),
    );
    expect(low!.measured!.quality).toBeLessThanOrEqual(good!.measured!.quality);
    expect(good!.measured!.quality).toBeLessThanOrEqual(best!.measured!.quality);
    expect(low!.body.length).toBeLessThan(best!.body.length);
    expect(best!.measured!.score).toBeGreaterThan(low!.measured!.score);
  });

  it("searches the negotiated format on its own scale under f_auto", async () => {
    const result = await transform("w_400,q_auto,f_auto", photo, "image/avif,image/webp,*/*");
    expect(result).toMatchObject({ format: "avif", negotiated: true });
    expect(result.measured!.score >= 80 || result.measured!.quality >= 85).toBe(true);
  });

  it("leaves lossless outputs and animations to the format's defaults, unmeasured", async () => {
    expect((await transform("w_100,q_auto,f_png")).measured).toBeUndefined();
    const gif = await animatedGif(40, 40, [
      [255, 0, 0],
      [0, 0, 255],
    ]);
    const animated = await transform("q_auto,f_webp", gif);
    expect(animated.measured).toBeUndefined();
    expect((await sharp(animated.body, { animated: true }).metadata()).pages).toBe(2);
  });
});

describe("q_auto on unusual outputs", () => {
  it("searches a grayscale output (one channel after the effect) like any other", async () => {
    const result = await transform("w_300,grayscale,q_auto,f_jpg");
    expect(result.measured!.score).toBeGreaterThan(0);
    const decodedOutput = await sharp(result.body).raw().toBuffer({ resolveWithObject: true });
    expect(decodedOutput.info.width).toBe(300);
  });

  it("keeps the default quality, unmeasured, for an output under the metric's 8×8", async () => {
    const tiny = await transform("s_16x6,q_auto,f_webp");
    expect([tiny.width, tiny.height]).toEqual([16, 6]);
    expect(tiny.measured).toBeUndefined();
    expect(tiny.body.equals((await transform("s_16x6,f_webp")).body)).toBe(true);
  });

  it("scores an output over 1 MP on a copy shrunk to 1 MP, and still serves the full size", async () => {
    const big = await transform("w_1600,enlarge,q_auto,f_webp");
    expect([big.width, big.height]).toEqual([1600, 1600]);
    expect(big.measured!.score >= 80 || big.measured!.quality >= 90).toBe(true);
  });

  it("searches an image with alpha, scoring it over dark and light grey", async () => {
    const logo = await sharp(photo).resize(200).ensureAlpha(0.6).png().toBuffer();
    const result = await transform("q_auto,f_webp", logo);
    expect((await sharp(result.body).metadata()).hasAlpha).toBe(true);
    expect(result.measured!.score >= 80 || result.measured!.quality >= 90).toBe(true);
  });
});

describe("q_auto's spelling", () => {
  it("takes a level, the last q_ token wins, and maxbytes_ is refused beside it", () => {
    expect(parseOperations("q_auto")).toMatchObject({ qualityTarget: "good" });
    expect(parseOperations("q_auto:eco")).toMatchObject({ qualityTarget: "eco" });
    expect(parseOperations("q_80,q_auto")).toMatchObject({ qualityTarget: "good", quality: undefined });
    expect(parseOperations("q_auto,q_80")).toMatchObject({ quality: 80, qualityTarget: undefined });
    expect(() => parseOperations("q_auto:fine")).toThrow(/expected q_/);
    expect(() => parseOperations("q_auto,maxbytes_5000")).toThrow(/cannot be combined/);
  });
});

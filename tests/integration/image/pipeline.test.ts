import { decode as decodeBlurHash } from "blurhash";
import sharp from "sharp";
import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA } from "thumbhash";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations, type TransformLimits, type TransformResult } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import type { ImageInfo } from "@optstuff/client";
import { animatedGif, near, noisyJpeg, pixel, solid, stripes, type Rgb } from "./generate";

const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];
const CHROME = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";

function transform(
  input: Buffer,
  segment: string,
  accept: string | null = null,
  limits: Partial<TransformLimits> = {},
) {
  return transformImage(input, parseOperations(segment), { accept }, { ...DEFAULT_TRANSFORM_LIMITS, ...limits });
}

/** Decodes the output and checks it agrees with what the result claims. */
async function decoded(result: TransformResult) {
  const metadata = await sharp(result.body).metadata();
  const format = metadata.format === "heif" && metadata.compression === "av1" ? "avif" : metadata.format;
  expect(format).toBe(result.format);
  expect(metadata.width).toBe(result.width);
  expect(metadata.pageHeight ?? metadata.height).toBe(result.height);
  return metadata;
}

let photo: Buffer; // 3000×2000 noisy JPEG
let threeStripes: Buffer; // 300×100 PNG: red | green | blue

beforeAll(async () => {
  configureSharp();
  photo = await noisyJpeg(3000, 2000);
  threeStripes = await stripes(300, 100, [RED, GREEN, BLUE]).png().toBuffer();
});

describe("resize", () => {
  it("w_800,f_webp on a 3000×2000 JPEG gives an 800×533 WebP", async () => {
    const result = await transform(photo, "w_800,f_webp");
    expect(result).toMatchObject({
      format: "webp",
      contentType: "image/webp",
      width: 800,
      height: 533,
      negotiated: false,
    });
    await decoded(result);
  });

  it.each([
    ["cover", 800, 400],
    ["contain", 800, 400],
    ["fill", 800, 400],
    ["inside", 600, 400],
    ["outside", 800, 533],
  ])("w_800,h_400,fit_%s honours both dimensions → %i×%i", async (fit, width, height) => {
    const result = await transform(photo, `w_800,h_400,fit_${fit}`);
    expect([result.width, result.height]).toEqual([width, height]);
    await decoded(result);
  });

  it("defaults a box to cover, and s_WxH is the same box", async () => {
    const box = await transform(photo, "w_800,h_400");
    const s = await transform(photo, "s_800x400");
    expect([box.width, box.height, s.width, s.height]).toEqual([800, 400, 800, 400]);
  });

  it("h alone keeps the aspect ratio", async () => {
    const result = await transform(photo, "h_200");
    expect([result.width, result.height]).toEqual([300, 200]);
  });

  it("does not upscale unless enlarge is given", async () => {
    const small = await solid(100, 50, RED).png().toBuffer();
    const kept = await transform(small, "w_800");
    expect([kept.width, kept.height]).toEqual([100, 50]);
    const enlarged = await transform(small, "w_800,enlarge");
    expect([enlarged.width, enlarged.height]).toEqual([800, 400]);
    await decoded(enlarged);
  });

  it("multiplies by dpr", async () => {
    const result = await transform(photo, "w_300,dpr_2");
    expect([result.width, result.height]).toEqual([600, 400]);
  });

  it("caps the output at the maximum dimension, with or without a resize", async () => {
    const untouched = await transform(photo, "_", null, { maxOutputDimension: 500 });
    expect([untouched.width, untouched.height]).toEqual([500, 333]);
    const asked = await transform(photo, "w_2000,dpr_2", null, { maxOutputDimension: 1000 });
    expect([asked.width, asked.height]).toEqual([1000, 667]);
    const outside = await transform(photo, "s_1000x900,fit_outside", null, { maxOutputDimension: 1000 });
    expect(Math.max(outside.width, outside.height)).toBe(1000);
    await decoded(outside);
  });
});

describe("WebP effort", () => {
  it("encodes with the configured effort: a lower one is a different encoding of the same image", async () => {
    const byEffort = await Promise.all(
      [0, 4, 6].map((webpEffort) => transform(photo, "w_800,f_webp", null, { webpEffort })),
    );
    const [fastest, standard, slowest] = byEffort;
    const defaulted = await transform(photo, "w_800,f_webp");
    // The default is effort 4: the same bytes as asking for 4.
    expect(defaulted.body.equals(standard!.body)).toBe(true);
    expect(fastest!.body.equals(standard!.body)).toBe(false);
    expect(slowest!.body.equals(standard!.body)).toBe(false);
    for (const result of byEffort) {
      const metadata = await decoded(result);
      expect([metadata.width, metadata.height]).toEqual([800, 533]);
    }
  });
});

describe("framing: embed, gravity, crop", () => {
  it("embed,s_300x200 letterboxes to exactly 300×200, transparent for PNG", async () => {
    const result = await transform(await stripes(300, 100, [RED, GREEN, BLUE]).png().toBuffer(), "embed,s_300x200");
    expect([result.format, result.width, result.height]).toEqual(["png", 300, 200]);
    await decoded(result);
    expect((await pixel(result.body, 0, 0))[3]).toBe(0);
    expect(near(await pixel(result.body, 0, 100), [...RED, 255])).toBe(true);
  });

  it("letterboxes a JPEG on white, and on bg_ when given", async () => {
    const source = await stripes(300, 100, [RED, GREEN, BLUE]).jpeg().toBuffer();
    const white = await transform(source, "embed,s_300x200");
    expect(white.format).toBe("jpeg");
    expect(near(await pixel(white.body, 2, 2), [255, 255, 255, 255])).toBe(true);
    const blue = await transform(source, "embed,s_300x200,bg_0000ff,f_webp");
    expect([blue.width, blue.height]).toEqual([300, 200]);
    expect(near(await pixel(blue.body, 2, 2), [0, 0, 255, 255])).toBe(true);
  });

  it("embeds a small image without enlarging it, still on the full box", async () => {
    const small = await solid(30, 20, RED).png().toBuffer();
    const result = await transform(small, "embed,s_300x200,bg_00ff00");
    expect([result.width, result.height]).toEqual([300, 200]);
    expect(near(await pixel(result.body, 150, 100), [...RED, 255])).toBe(true);
    expect(near(await pixel(result.body, 0, 0), [...GREEN, 255])).toBe(true);
  });

  it.each([
    ["g_west", RED],
    ["g_center", GREEN],
    ["g_east", BLUE],
  ])("s_100x100,%s keeps that part", async (gravity, colour) => {
    const result = await transform(threeStripes, `s_100x100,${gravity}`);
    expect([result.width, result.height]).toEqual([100, 100]);
    expect(near(await pixel(result.body, 50, 50), [...colour, 255])).toBe(true);
  });

  it("applies gravity before flop and rotation (crop, then orient)", async () => {
    for (const extra of ["flop", "r_90", "r_180", "r_270", "flip", "flip,flop,r_90"]) {
      const result = await transform(threeStripes, `s_100x100,g_west,${extra}`);
      expect(near(await pixel(result.body, 50, 50), [...RED, 255]), extra).toBe(true);
    }
  });

  it("crops before resizing, in source coordinates, even with a rotation", async () => {
    const right = await transform(threeStripes, "c_200_0_100_100");
    expect([right.width, right.height]).toEqual([100, 100]);
    expect(near(await pixel(right.body, 50, 50), [...BLUE, 255])).toBe(true);
    const rotated = await transform(threeStripes, "c_200_0_100_50,w_20,r_90");
    expect([rotated.width, rotated.height]).toEqual([10, 20]);
    expect(near(await pixel(rotated.body, 5, 10), [...BLUE, 255])).toBe(true);
  });

  it("smart-crops with attention and entropy", async () => {
    for (const gravity of ["attention", "entropy"]) {
      const result = await transform(photo, `s_200x200,g_${gravity}`);
      expect([result.width, result.height]).toEqual([200, 200]);
    }
  });
});

describe("orientation and metadata", () => {
  it("auto-orients EXIF orientation 6 and drops the EXIF", async () => {
    // Stored 60×40 with a red left column; orientation 6 displays it rotated 90° clockwise (40×60).
    const stored = await stripes(60, 40, [RED, BLUE, BLUE]).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const result = await transform(stored, "_");
    expect([result.width, result.height]).toEqual([40, 60]);
    const metadata = await decoded(result);
    expect(metadata.orientation).toBeUndefined();
    expect(metadata.exif).toBeUndefined();
    expect(near(await pixel(result.body, 20, 2), [...RED, 255], 40)).toBe(true);
    expect(near(await pixel(result.body, 20, 57), [...BLUE, 255], 40)).toBe(true);
  });

  it("rotates with r_ after the EXIF orientation", async () => {
    const stored = await stripes(60, 40, [RED, BLUE, BLUE]).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    // Displayed 40×60 with red on top; a further 90° clockwise puts red on the right.
    const result = await transform(stored, "r_90,w_30");
    expect([result.width, result.height]).toEqual([45, 30]);
    expect(near(await pixel(result.body, 43, 15), [...RED, 255], 40)).toBe(true);
    expect(near(await pixel(result.body, 2, 15), [...BLUE, 255], 40)).toBe(true);
  });

  it("applies a width to the oriented image", async () => {
    const stored = await solid(600, 400, RED).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const result = await transform(stored, "w_200");
    expect([result.width, result.height]).toEqual([200, 300]);
  });

  // The credit line (EXIF Copyright and Artist) is kept: tests/integration/image/metadata.test.ts.
  it("strips EXIF, XMP and ICC metadata", async () => {
    const tagged = await solid(64, 64, [10, 120, 200])
      .jpeg()
      .withExif({ IFD0: { Make: "secret", Model: "someone", Software: "editor" } })
      .withXmp(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>',
      )
      .withIccProfile("p3")
      .toBuffer();
    const before = await sharp(tagged).metadata();
    expect(before.exif && before.xmp && before.icc).toBeTruthy();
    for (const format of ["jpg", "webp", "png", "avif"]) {
      const metadata = await decoded(await transform(tagged, `w_32,f_${format}`));
      expect([metadata.exif, metadata.xmp, metadata.icc, metadata.iptc]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
    }
  });

  it("converts a CMYK JPEG to sRGB", async () => {
    const cmyk = await solid(40, 40, [200, 100, 50]).withIccProfile("cmyk").jpeg().toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe("cmyk");
    const result = await transform(cmyk, "f_png");
    const metadata = await decoded(result);
    expect([metadata.space, metadata.channels]).toEqual(["srgb", 3]);
    // CMYK round trips are not exact (gamut, rendering intent): the colour must stay the same orange.
    expect(near(await pixel(result.body, 5, 5), [200, 100, 50, 255], 30)).toBe(true);
  });

  it("converts a Display P3 image to sRGB values", async () => {
    // The file stores P3 numbers for sRGB (200, 100, 50); read raw, they are clearly different.
    const p3 = await solid(40, 40, [200, 100, 50]).withIccProfile("p3").png().toBuffer();
    const stored = await sharp(p3, { ignoreIcc: true }).raw().toBuffer();
    expect(near([...stored.subarray(0, 3)], [200, 100, 50], 5)).toBe(false);
    const result = await transform(p3, "f_png");
    const metadata = await decoded(result);
    expect(metadata.icc).toBeUndefined();
    expect(near(await pixel(result.body, 5, 5), [200, 100, 50, 255], 3)).toBe(true);
  });
});

describe("alpha", () => {
  let translucent: Buffer;
  beforeAll(async () => {
    translucent = await solid(100, 100, [255, 0, 0, 0.5]).png().toBuffer();
  });

  it.each(["webp", "png", "avif"])("keeps alpha in %s", async (format) => {
    const result = await transform(translucent, `w_50,f_${format}`);
    const metadata = await decoded(result);
    expect(metadata.hasAlpha).toBe(true);
    expect(Math.abs((await pixel(result.body, 10, 10))[3] - 128)).toBeLessThan(10);
  });

  it("keeps a PNG as PNG with alpha when no f_ is given", async () => {
    const result = await transform(translucent, "w_50");
    expect(result.format).toBe("png");
    expect((await decoded(result)).hasAlpha).toBe(true);
  });

  it("flattens onto white for JPEG, and onto an opaque bg_ for any format", async () => {
    const jpeg = await transform(translucent, "f_jpg");
    expect(near(await pixel(jpeg.body, 10, 10), [255, 127, 127, 255])).toBe(true);
    const flat = await transform(translucent, "f_png,bg_0000ff");
    expect(near(await pixel(flat.body, 10, 10), [127, 0, 127, 255])).toBe(true);
  });
});

describe("animation", () => {
  let gif: Buffer; // 4 frames of 40×30
  beforeAll(async () => {
    gif = await animatedGif(40, 30, [RED, GREEN, BLUE, [255, 255, 0]]);
  });

  it("keeps the frames (and their timing) in WebP and GIF", async () => {
    for (const format of ["webp", "gif"] as const) {
      const result = await transform(gif, `w_20,f_${format}`);
      expect([result.width, result.height]).toEqual([20, 15]);
      const metadata = await decoded(result);
      expect(metadata.pages).toBe(4);
      expect(metadata.delay).toEqual([100, 100, 100, 100]);
    }
    const kept = await transform(gif, "_");
    expect([kept.format, kept.width, kept.height]).toEqual(["gif", 40, 30]);
    expect((await sharp(kept.body).metadata()).pages).toBe(4);
  });

  it("keeps the frames in order and in colour", async () => {
    const result = await transform(gif, "f_webp");
    const third = await sharp(result.body, { page: 2 }).ensureAlpha().raw().toBuffer();
    expect(near([...third.subarray(0, 4)], [...BLUE, 255])).toBe(true);
  });

  it("gives the first frame with anim_false, and in AVIF, PNG and JPEG", async () => {
    for (const segment of [
      "f_webp,anim_false",
      "anim_false",
      "f_avif",
      "f_png",
      "f_jpg",
      "f_webp,flip",
      "f_webp,r_90",
    ]) {
      const result = await transform(gif, segment);
      const metadata = await decoded(result);
      expect(metadata.pages ?? 1, segment).toBe(1);
      expect(near(await pixel(result.body, 5, 5), [...RED, 255], 20), segment).toBe(true);
    }
  });

  it("crops and flops every frame", async () => {
    const result = await transform(gif, "s_20x20,flop,f_webp");
    expect([result.width, result.height]).toEqual([20, 20]);
    expect((await decoded(result)).pages).toBe(4);
  });

  it("falls back to a centred crop for smart gravity", async () => {
    const result = await transform(gif, "s_20x20,g_attention,f_webp");
    expect((await decoded(result)).pages).toBe(4);
  });
});

describe("info", () => {
  const infoOf = async (input: Buffer) => {
    const result = await transform(input, "info");
    expect(result).toMatchObject({ format: "json", contentType: "application/json" });
    return JSON.parse(result.body.toString()) as ImageInfo;
  };
  const hex = (colour: string) => [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));

  it("describes a photo: size, format, bytes, and placeholders that decode to its shape and colour", async () => {
    const info = await infoOf(photo);
    expect(info).toMatchObject({
      width: 3000,
      height: 2000,
      format: "jpeg",
      frames: 1,
      animated: false,
      alpha: false,
      bytes: photo.length,
    });
    const thumb = Buffer.from(info.thumbhash, "base64");
    expect(thumbHashToApproximateAspectRatio(thumb)).toBeCloseTo(1.5, 0);
    const average = thumbHashToAverageRGBA(thumb);
    const { channels } = await sharp(photo).stats();
    expect(Math.abs(average.r * 255 - channels[0]!.mean)).toBeLessThan(20);
    expect(info.blurhash).toHaveLength(28);
    expect(info.palette.length).toBeGreaterThan(1);
    expect(info.palette.reduce((sum, { share }) => sum + share, 0)).toBeCloseTo(1, 2);
    const pixels = decodeBlurHash(info.blurhash, 4, 4);
    expect(Math.abs(pixels[0]! - channels[0]!.mean)).toBeLessThan(60);
  });

  it("names the dominant colour, alpha, frames, and the size after EXIF orientation", async () => {
    const mostlyRed = await stripes(300, 100, [RED, RED, BLUE]).png().toBuffer();
    expect(near([...hex((await infoOf(mostlyRed)).dominant), 255], [...RED, 255], 12)).toBe(true);
    // Two thirds red, a third blue; the 100 px copy blends one column at the border.
    const { palette } = await infoOf(mostlyRed);
    expect(palette.length).toBeGreaterThanOrEqual(2);
    expect(near([...hex(palette[0]!.colour), 255], [...RED, 255], 12)).toBe(true);
    expect(palette[0]!.share).toBeCloseTo(2 / 3, 1);
    expect(near([...hex(palette[1]!.colour), 255], [...BLUE, 255], 12)).toBe(true);
    expect(palette[1]!.share).toBeCloseTo(1 / 3, 1);
    expect((await infoOf(await solid(20, 20, [0, 0, 0, 0]).png().toBuffer())).palette).toEqual([]);
    expect((await infoOf(await solid(20, 20, [0, 0, 0, 0]).png().toBuffer())).alpha).toBe(true);
    expect(await infoOf(await animatedGif(30, 20, [RED, GREEN, BLUE]))).toMatchObject({
      frames: 3,
      animated: true,
      format: "gif",
    });
    const turned = await solid(40, 10, RED).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await infoOf(turned)).toMatchObject({ width: 10, height: 40 });
  });

  it("with operations, also describes what they make, exactly as the URL without info makes it", async () => {
    const described = await transform(photo, "info,w_300,f_webp,q_auto:eco");
    const info = JSON.parse(described.body.toString()) as ImageInfo;
    const image = await transform(photo, "w_300,f_webp,q_auto:eco");
    expect(info).toMatchObject({ width: 3000, height: 2000, format: "jpeg" });
    expect(info.output).toEqual({
      format: "webp",
      width: 300,
      height: 200,
      bytes: image.body.length,
      quality: image.measured!.quality,
      score: image.measured!.score,
    });
    expect(described.negotiated).toBe(false);
    // A negotiated output makes the description negotiated too (Vary: Accept on the answer).
    const negotiated = await transform(photo, "info,w_120,f_auto", CHROME);
    expect(negotiated.negotiated).toBe(true);
    expect((JSON.parse(negotiated.body.toString()) as ImageInfo).output).toMatchObject({ format: "avif", width: 120 });
    expect((JSON.parse((await transform(photo, "info")).body.toString()) as ImageInfo).output).toBeUndefined();
  });

  it("refuses what is not an image, and a pixel bomb, as a transform would", async () => {
    await expect(transform(Buffer.from("not an image"), "info")).rejects.toMatchObject({
      code: expect.stringMatching(/UNSUPPORTED_IMAGE|UNDECODABLE_IMAGE/),
    });
    await expect(transform(photo, "info", null, { maxInputPixels: 1_000_000 })).rejects.toMatchObject({
      code: "IMAGE_TOO_LARGE",
    });
  });
});

describe("format negotiation", () => {
  it.each([
    [CHROME, "avif"],
    ["image/webp,*/*", "webp"],
    ["*/*", "jpeg"],
    [null, "jpeg"],
  ])("f_auto with Accept %s gives %s", async (accept, format) => {
    const result = await transform(photo, "w_300,f_auto", accept);
    expect(result).toMatchObject({ format, contentType: `image/${format}`, negotiated: true });
    await decoded(result);
  });

  it("f_auto reads q_ on the WebP/JPEG scale: the AVIF it picks is the one of equal look, not a larger file", async () => {
    const auto = await transform(photo, "w_600,q_80,f_auto", CHROME);
    const webp = await transform(photo, "w_600,q_80,f_webp");
    expect(auto.format).toBe("avif");
    // q_80 on the WebP scale is AVIF's 50 (the two formats' defaults): the same bytes as asking for it.
    expect(auto.body.equals((await transform(photo, "w_600,q_50,f_avif")).body)).toBe(true);
    expect(auto.body.length).toBeLessThan(webp.body.length);
    // An explicit f_avif keeps q_ as AVIF's own quality.
    expect((await transform(photo, "w_600,q_80,f_avif")).body.length).toBeGreaterThan(auto.body.length);
  });

  it("maxbytes_ steps the quality down to the first encode that fits, or answers the smallest", async () => {
    const at = async (q: number) => (await transform(photo, `w_600,q_${q},f_webp`)).body;
    const [q80, q60, q24] = await Promise.all([at(80), at(60), at(24)]);
    expect(q60.length).toBeLessThan(q80.length);
    const between = Math.floor((q60.length + q80.length) / 2);
    const fitted = await transform(photo, `w_600,q_80,f_webp,maxbytes_${between}`);
    expect(fitted.body.equals(q60)).toBe(true);
    expect(fitted.body.length).toBeLessThanOrEqual(between);
    await decoded(fitted);
    // Nothing fits 1 KB at 600 px: the smallest of the steps (80 → 60 → 40 → 24) comes back.
    expect((await transform(photo, "w_600,f_webp,maxbytes_1024")).body.equals(q24)).toBe(true);
    // f_auto's AVIF, by the same steps on q_'s scale.
    const avif = await transform(photo, `w_600,f_auto,maxbytes_${Math.floor(q60.length / 2)}`, CHROME);
    expect(avif.format).toBe("avif");
    expect(avif.body.length).toBeLessThanOrEqual(Math.floor(q60.length / 2));
    // PNG is lossless here: untouched.
    const png = await transform(threeStripes, "f_png,maxbytes_1024");
    expect(png.body.equals((await transform(threeStripes, "f_png")).body)).toBe(true);
  });

  it("f_auto on a transparent PNG for an old browser stays PNG", async () => {
    const png = await solid(20, 20, [0, 0, 0, 0]).png().toBuffer();
    expect((await transform(png, "f_auto", "image/png,*/*")).format).toBe("png");
  });

  it("keeps the source format without f_ and converts TIFF to JPEG", async () => {
    expect((await transform(photo, "w_100")).format).toBe("jpeg");
    const tiff = await solid(50, 50, RED).tiff().toBuffer();
    const result = await transform(tiff, "_");
    expect(result.format).toBe("jpeg");
    await decoded(result);
  });

  it("keeps an AVIF source as AVIF", async () => {
    const avif = await solid(50, 50, RED).avif({ effort: 0 }).toBuffer();
    const result = await transform(avif, "w_20");
    expect(result).toMatchObject({ format: "avif", width: 20 });
    await decoded(result);
  });

  it("passes a clean SVG through untouched, and rasterises it to PNG when resized", async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="red"/></svg>',
    );
    const passed = await transform(svg, "_");
    expect(passed).toMatchObject({
      format: "svg",
      contentType: "image/svg+xml",
      width: 100,
      height: 50,
      negotiated: false,
    });
    expect(passed.body.equals(svg)).toBe(true);
    const raster = await transform(svg, "w_200,enlarge");
    expect(raster).toMatchObject({ format: "png", width: 200, height: 100 });
    expect(near(await pixel(raster.body, 100, 50), [...RED, 255])).toBe(true);
  });

  it("lowers the size with the quality", async () => {
    const low = await transform(photo, "w_600,q_10,f_webp");
    const high = await transform(photo, "w_600,q_95,f_webp");
    expect(low.body.length).toBeLessThan(high.body.length);
  });
});

describe("placeholder and effects", () => {
  it("placeholder is a tiny still image", async () => {
    const result = await transform(photo, "placeholder,f_webp");
    expect([result.width, result.height]).toEqual([32, 21]);
    expect(result.body.length).toBeLessThan(2000);
    await decoded(result);
    const gif = await animatedGif(40, 30, [RED, BLUE]);
    const still = await transform(gif, "placeholder");
    expect((await decoded(still)).pages ?? 1).toBe(1);
    expect(still.width).toBeLessThanOrEqual(32);
  });

  it("blur lowers and sharpen raises the sharpness", async () => {
    const base = await sharp((await transform(photo, "w_400,f_png")).body).stats();
    const blurred = await sharp((await transform(photo, "w_400,f_png,blur_3")).body).stats();
    expect(blurred.sharpness).toBeLessThan(base.sharpness / 2);
    const soft = await stripes(200, 200, [RED, BLUE]).blur(4).png().toBuffer();
    const softStats = await sharp(soft).stats();
    const sharpened = await sharp((await transform(soft, "sharpen_3")).body).stats();
    expect(sharpened.sharpness).toBeGreaterThan(softStats.sharpness * 1.2);
  });

  it("grayscale makes every pixel grey", async () => {
    const result = await transform(threeStripes, "grayscale,f_webp");
    for (const x of [50, 150, 250]) {
      const [r, g, b] = await pixel(result.body, x, 50);
      expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThanOrEqual(2);
    }
  });

  it.each(["grayscale,f_png", "grayscale,q_auto,f_webp", "grayscale,f_best", "grayscale,pixelate_4,f_png"])(
    "%s keeps the transparency, and makes the colours grey",
    async (segment) => {
      // Half transparent on the left, opaque on the right.
      const half = await stripes(300, 100, [RED, GREEN, BLUE])
        .ensureAlpha()
        .composite([
          {
            input: Buffer.from([0, 0, 0, 128]),
            raw: { width: 1, height: 1, channels: 4 },
            tile: true,
            blend: "dest-in",
          },
        ])
        .png()
        .toBuffer();
      const result = await transformImage(
        half,
        parseOperations(segment),
        { accept: "image/png,*/*" },
        DEFAULT_TRANSFORM_LIMITS,
      );
      expect(result.format).toBe(segment.includes("webp") ? "webp" : "png");
      for (const x of [50, 150, 250]) {
        const [r, g, b, alpha] = await pixel(result.body, x, 50);
        expect(Math.abs(alpha - 128), segment).toBeLessThanOrEqual(2);
        expect(Math.max(r, g, b) - Math.min(r, g, b), segment).toBeLessThanOrEqual(2);
      }
    },
  );

  it("pad_ grows the output by its sides, in bg_ or transparent, after resize and rotation", async () => {
    const red = await solid(40, 20, RED).png().toBuffer();
    const clear = await transform(red, "pad_10,f_png");
    expect([clear.width, clear.height]).toEqual([60, 40]);
    await decoded(clear);
    expect((await pixel(clear.body, 0, 0))[3]).toBe(0);
    expect(near(await pixel(clear.body, 30, 20), [...RED, 255])).toBe(true);

    // CSS order (top right bottom left), × dpr; JPEG has no alpha, so bg_ (else white) fills it.
    const boxed = await transform(red, "w_20,dpr_2,pad_1_2_3_4,bg_00ff00,f_jpg");
    expect([boxed.width, boxed.height]).toEqual([40 + 4 + 8, 20 + 2 + 6]);
    expect(near(await pixel(boxed.body, 3, 10), [...GREEN, 255], 30)).toBe(true);
    expect(near(await pixel(boxed.body, 26, 14), [...RED, 255], 30)).toBe(true);
    // 16 px: one whole JPEG block of padding, so chroma subsampling cannot bleed red into the sample.
    const white = await transform(red, "pad_16,f_jpg");
    expect(near(await pixel(white.body, 2, 2), [255, 255, 255, 255])).toBe(true);

    // The sides are the output's: after r_90 the 40×20 image stands 20×40, padded on its left only.
    const turned = await transform(red, "r_90,pad_0_0_0_10,f_png");
    expect([turned.width, turned.height]).toEqual([30, 40]);
    expect((await pixel(turned.body, 5, 20))[3]).toBe(0);
    expect(near(await pixel(turned.body, 20, 20), [...RED, 255])).toBe(true);
  });

  it("trim cuts the border of the top-left colour, then w_ and pad_ apply to what is left", async () => {
    const inner = await solid(40, 20, RED).png().toBuffer();
    const framed = await sharp({
      create: { width: 100, height: 80, channels: 3, background: { r: 255, g: 255, b: 255 } },
    })
      .composite([{ input: inner, left: 30, top: 30 }])
      .png()
      .toBuffer();
    const trimmed = await transform(framed, "trim,f_png");
    expect([trimmed.width, trimmed.height]).toEqual([40, 20]);
    expect(near(await pixel(trimmed.body, 0, 0), [...RED, 255])).toBe(true);
    expect(near(await pixel(trimmed.body, 39, 19), [...RED, 255])).toBe(true);
    // w_ keeps the trimmed shape (2:1), not the source's (5:4); pad_ goes around the result.
    const sized = await transform(framed, "trim,w_20,pad_2,f_png");
    expect([sized.width, sized.height]).toEqual([24, 14]);
    // A threshold above the difference keeps nothing of the frame apart: a plain image is left as it is.
    const plain = await transform(inner, "trim_50,f_png");
    expect([plain.width, plain.height]).toEqual([40, 20]);
  });

  it("trim on an animation gives its first frame, trimmed", async () => {
    const gif = await animatedGif(30, 30, [RED, GREEN, BLUE]);
    const result = await transform(gif, "trim,f_webp");
    expect((await decoded(result)).pages ?? 1).toBe(1);
  });

  it("pixelate_ makes square blocks, each about the average of what it covers, then pads", async () => {
    // 40×10 after w_40: red, green, blue, blue stripes 10 px wide; the first 20 px block is red and green.
    const fourStripes = await stripes(400, 100, [RED, GREEN, BLUE, BLUE]).png().toBuffer();
    const result = await transform(fourStripes, "w_40,pixelate_20,pad_4,f_png");
    expect([result.width, result.height]).toEqual([48, 18]);
    await decoded(result);
    expect((await pixel(result.body, 1, 1))[3]).toBe(0);
    const [first, same, last] = await Promise.all([
      pixel(result.body, 4, 4),
      pixel(result.body, 23, 13),
      pixel(result.body, 30, 8),
    ]);
    // libvips's resize averages with a kernel that reaches a little past the block: about the mean.
    expect(near(first, [128, 128, 0, 255], 40)).toBe(true);
    expect(same).toEqual(first);
    expect(near(last, [...BLUE, 255], 40)).toBe(true);
    // On a photo: every 8×8 block is one colour, and blocks differ.
    const photoBlocks = await transform(photo, "w_64,pixelate_8,f_png");
    const { data, info } = await sharp(photoBlocks.body).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => data.readUInt32BE((y * info.width + x) * info.channels) >>> 8;
    for (const [bx, by] of [
      [0, 0],
      [3, 2],
      [7, 4],
    ] as const) {
      for (const [dx, dy] of [
        [0, 0],
        [7, 0],
        [0, 7],
        [7, 7],
        [3, 5],
      ])
        expect(at(bx * 8 + dx!, by * 8 + dy!)).toBe(at(bx * 8, by * 8));
    }
    // Blocks differ where the image does: a left-to-right gradient gives a new colour every block.
    const ramp = Buffer.alloc(64 * 8 * 3);
    for (let i = 0; i < 64 * 8; i++) ramp.writeUIntBE((i % 64) * 4 * 0x10101, i * 3, 3);
    const gradient = await sharp(ramp, { raw: { width: 64, height: 8, channels: 3 } })
      .png()
      .toBuffer();
    const steps = await sharp((await transform(gradient, "pixelate_8,f_png")).body)
      .raw()
      .toBuffer({ resolveWithObject: true });
    const red = (x: number) => steps.data[x * steps.info.channels]!;
    expect([0, 8, 16, 24].map(red)).toEqual([...new Set([0, 8, 16, 24].map(red))]);
    expect(red(0)).toBe(red(7));
  });

  it("pixelate_ with maxbytes_ and on an animation (its first frame)", async () => {
    const unfitted = await transform(photo, "w_400,pixelate_2,f_webp");
    const fitted = await transform(photo, "w_400,pixelate_2,f_webp,maxbytes_1024");
    expect([fitted.width, fitted.height]).toEqual([400, 267]);
    expect(fitted.body.length).toBeLessThan(unfitted.body.length);
    const gif = await animatedGif(30, 30, [RED, GREEN, BLUE]);
    expect((await decoded(await transform(gif, "pixelate_5,f_webp"))).pages ?? 1).toBe(1);
  });

  it("pads every frame of an animation", async () => {
    const gif = await animatedGif(30, 30, [RED, GREEN, BLUE]);
    const result = await transform(gif, "pad_5,f_webp");
    expect([result.width, result.height]).toEqual([40, 40]);
    expect((await decoded(result)).pages).toBe(3);
  });

  it("brightness, saturation and hue change the decoded colours, and compose", async () => {
    const grey = await solid(40, 40, [100, 100, 100]).png().toBuffer();
    const [dim] = await pixel((await transform(grey, "brightness_0.5,f_png")).body, 20, 20);
    const [bright] = await pixel((await transform(grey, "brightness_1.5,f_png")).body, 20, 20);
    expect(dim).toBeLessThan(70);
    expect(bright).toBeGreaterThan(130);
    const red = await solid(40, 40, RED).png().toBuffer();
    const [r, g, b] = await pixel((await transform(red, "saturation_0,f_png")).body, 20, 20);
    expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThanOrEqual(2);
    // Red turned by 120° is green-dominant, by 240° blue-dominant.
    const green = await pixel((await transform(red, "hue_120,f_png")).body, 20, 20);
    expect(green[1]).toBeGreaterThan(Math.max(green[0], green[2]) + 60);
    const blue = await pixel((await transform(red, "hue_240,f_png")).body, 20, 20);
    expect(blue[2]).toBeGreaterThan(Math.max(blue[0], blue[1]) + 60);
    // Unchanged values are the same variant as no token at all: same bytes.
    const plain = await transform(red, "w_20,f_png");
    expect((await transform(red, "w_20,brightness_1,saturation_1,hue_0,f_png")).body.equals(plain.body)).toBe(true);
  });

  it("r_90 rotates clockwise; w and h describe the image before rotation", async () => {
    const result = await transform(threeStripes, "r_90");
    expect([result.width, result.height]).toEqual([100, 300]);
    expect(near(await pixel(result.body, 50, 10), [...RED, 255])).toBe(true);
    expect(near(await pixel(result.body, 50, 290), [...BLUE, 255])).toBe(true);
    const sized = await transform(threeStripes, "w_150,r_90");
    expect([sized.width, sized.height]).toEqual([50, 150]);
  });

  it("flip mirrors top and bottom, flop left and right", async () => {
    const bands = await stripes(90, 90, [RED, GREEN, BLUE], true).png().toBuffer();
    const flipped = await transform(bands, "flip");
    expect(near(await pixel(flipped.body, 45, 5), [...BLUE, 255])).toBe(true);
    const flopped = await transform(threeStripes, "flop");
    expect(near(await pixel(flopped.body, 10, 50), [...BLUE, 255])).toBe(true);
  });
});

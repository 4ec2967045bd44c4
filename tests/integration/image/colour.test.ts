import path from "node:path";
import { clampRgb, converter, differenceCiede2000, type Rgb } from "culori";
import sharp, { type Sharp } from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";

/**
 * Wide-gamut sources come out as sRGB whose colours match an independent conversion (culori's, from
 * the colour spaces' published definitions). The product's target is a mean ΔE2000 of at most 2 (what
 * a viewer would call the same colour); measured, the conversions reach 0.08–0.31 (worst patch 1.84),
 * so they are held to 0.5 here, while reading the numbers as sRGB misses by 2.1–2.6. Colours outside
 * sRGB are clipped per channel in both, as a matrix profile's conversion does.
 */
const ADOBE_RGB = path.join(import.meta.dirname, "../../fixtures/icc/compatibleWithAdobeRGB1998.icc");

/** Patches of one colour each, 16 px so that lossy encoders' blocks sit inside them. */
const PATCH = 16;
const STEPS = [0, 51, 102, 153, 204, 255];
const COLOURS = STEPS.flatMap((r) => STEPS.flatMap((g) => STEPS.map((b) => [r, g, b] as const)));
const COLUMNS = 18;
const WIDTH = COLUMNS * PATCH;
const HEIGHT = Math.ceil(COLOURS.length / COLUMNS) * PATCH;

const SPACES = {
  "Display P3": { profile: "p3", mode: "p3" },
  "Adobe RGB (1998)": { profile: ADOBE_RGB, mode: "a98" },
} as const;

/** The grid's numbers stored as they are, tagged with `profile`: read as sRGB they would be other colours. */
async function taggedGrid(profile: string): Promise<Buffer> {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  COLOURS.forEach((colour, i) => {
    const left = (i % COLUMNS) * PATCH;
    const top = Math.floor(i / COLUMNS) * PATCH;
    for (let y = top; y < top + PATCH; y++)
      for (let x = left; x < left + PATCH; x++) pixels.set(colour, (y * WIDTH + x) * 3);
  });
  const blank = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: "#000" } })
    .withIccProfile(profile)
    .png()
    .toBuffer();
  // keepIccProfile leaves the numbers unconverted: the composited ones are written under the profile.
  return await sharp(blank)
    .keepIccProfile()
    .composite([{ input: pixels, raw: { width: WIDTH, height: HEIGHT, channels: 3 }, left: 0, top: 0 }])
    .removeAlpha()
    .png()
    .toBuffer();
}

const toRgb = converter("rgb");
const deltaE = differenceCiede2000();

/** ΔE2000 per patch, between the output's patch centre and the reference conversion of its colour. */
async function differences(output: Buffer, mode: "p3" | "a98"): Promise<number[]> {
  const { data, info } = await sharp(output).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return COLOURS.map(([r, g, b], i) => {
    const x = (i % COLUMNS) * PATCH + PATCH / 2;
    const y = Math.floor(i / COLUMNS) * PATCH + PATCH / 2;
    const at = (y * info.width + x) * info.channels;
    const got: Rgb = { mode: "rgb", r: data[at]! / 255, g: data[at + 1]! / 255, b: data[at + 2]! / 255 };
    const reference = clampRgb(toRgb({ mode, r: r / 255, g: g / 255, b: b / 255 }));
    return deltaE(reference, got);
  });
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

beforeAll(() => configureSharp());

describe.each(Object.entries(SPACES))("a %s source", (_, { profile, mode }) => {
  let source: Buffer;
  beforeAll(async () => {
    source = await taggedGrid(profile);
  });

  it("is wide gamut as stored (the test's premise): its numbers read as sRGB are far from its colours", async () => {
    expect((await sharp(source).metadata()).icc).toBeDefined();
    const stored = await sharp(source).keepIccProfile().raw().toBuffer();
    // A saturated patch (pure red), whose numbers any conversion would change.
    const red = COLOURS.findIndex(([r, g, b]) => r === 255 && g === 0 && b === 0);
    const at = (Math.floor(red / COLUMNS) * PATCH * WIDTH + (red % COLUMNS) * PATCH) * 3;
    expect([...stored.subarray(at, at + 3)]).toEqual([255, 0, 0]);
    const misread = await sharp(stored, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .png()
      .toBuffer();
    // A pipeline that ignored the profile: four times what the conversions below are held to.
    expect(mean(await differences(misread, mode))).toBeGreaterThan(2);
  });

  it.each([
    ["f_png", 0.5, 1.5],
    ["f_jpg,q_90", 2, 6],
    ["f_webp", 2, 8],
    ["f_webp,q_auto:best", 2, 8],
    ["f_avif", 2, 8],
    ["f_best", 2, 8],
  ])(
    "%s: untagged sRGB within a mean ΔE2000 of %d of the reference conversion",
    async (segment, meanAtMost, maxAtMost) => {
      const out = await transformImage(
        source,
        parseOperations(segment),
        { accept: "image/avif,image/webp,*/*" },
        DEFAULT_TRANSFORM_LIMITS,
      );
      const metadata = await sharp(out.body).metadata();
      expect(metadata.icc).toBeUndefined();
      expect(metadata.space).toBe("srgb");
      const errors = await differences(out.body, mode);
      expect(errors).toHaveLength(216);
      expect(mean(errors), segment).toBeLessThanOrEqual(meanAtMost);
      expect(Math.max(...errors), segment).toBeLessThanOrEqual(maxAtMost);
    },
  );

  /** The output's numbers at each patch centre as stored, unconverted, against the grid's. */
  async function storedErrors(output: Buffer): Promise<number[]> {
    const { data, info } = await sharp(output)
      .keepIccProfile()
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return COLOURS.map((colour, i) => {
      const at = ((Math.floor(i / COLUMNS) * PATCH + PATCH / 2) * info.width + (i % COLUMNS) * PATCH + PATCH / 2) * 3;
      return Math.max(...colour.map((value, c) => Math.abs(data[at + c]! - value)));
    });
  }

  it.each([
    ["f_png", 0, 1.5],
    ["f_jpg,q_90", 3, 6],
    ["f_webp", 3, 8],
    ["f_webp,q_auto:best", 3, 8],
    ["f_avif", 3, 8],
    ["f_best", 3, 8],
    ["f_jpg,q_90,meta_keep", 3, 6],
  ])(
    "%s,cs_keep: tagged with the source's own profile, its numbers unconverted (mean error at most %d)",
    async (segment, storedAtMost, maxAtMost) => {
      const out = await transformImage(
        source,
        parseOperations(`${segment},cs_keep`),
        { accept: "image/avif,image/webp,*/*" },
        DEFAULT_TRANSFORM_LIMITS,
      );
      const metadata = await sharp(out.body).metadata();
      expect(metadata.icc?.equals((await sharp(source).metadata()).icc!), segment).toBe(true);
      expect(mean(await storedErrors(out.body)), segment).toBeLessThanOrEqual(storedAtMost);
      // Read as its profile says, it is the same colours as the source's.
      expect(mean(await differences(out.body, mode)), segment).toBeLessThanOrEqual(2);
      expect(Math.max(...(await differences(out.body, mode))), segment).toBeLessThanOrEqual(maxAtMost);
    },
  );

  it("f_gif,cs_keep: GIF has no place for a profile, so it is converted to sRGB as without cs_keep", async () => {
    const run = (segment: string) =>
      transformImage(source, parseOperations(segment), { accept: null }, DEFAULT_TRANSFORM_LIMITS);
    const [plain, kept] = await Promise.all([run("w_64,f_gif"), run("w_64,f_gif,cs_keep")]);
    expect(kept.body.equals(plain.body)).toBe(true);
    expect((await sharp(kept.body).metadata()).icc).toBeUndefined();
  });

  it("cs_keep keeps the colours sRGB has no room for: distinct patches stay distinct", async () => {
    const distinct = async (segment: string) => {
      const out = await transformImage(source, parseOperations(segment), { accept: null }, DEFAULT_TRANSFORM_LIMITS);
      const { data, info } = await sharp(out.body).keepIccProfile().raw().toBuffer({ resolveWithObject: true });
      return new Set(
        COLOURS.map((_, i) => {
          const at =
            ((Math.floor(i / COLUMNS) * PATCH + PATCH / 2) * info.width + (i % COLUMNS) * PATCH + PATCH / 2) *
            info.channels;
          return data.subarray(at, at + 3).join(",");
        }),
      ).size;
    };
    // Converted to sRGB, saturated patches clip onto the same numbers; kept, all 216 are told apart.
    expect(await distinct("f_png")).toBeLessThan(216);
    expect(await distinct("f_png,cs_keep")).toBe(216);
  });
});

describe("cs_keep where there is no RGB profile to keep", () => {
  it.each([
    ["an untagged sRGB source", (image: Sharp) => image.jpeg()],
    ["a CMYK JPEG", (image: Sharp) => image.toColourspace("cmyk").jpeg()],
  ])("%s: the same untagged sRGB output as without it", async (_, encode) => {
    const source = await encode(
      sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 60, b: 40 } } }),
    ).toBuffer();
    const run = (segment: string) =>
      transformImage(source, parseOperations(segment), { accept: null }, DEFAULT_TRANSFORM_LIMITS);
    const [plain, kept] = await Promise.all([run("w_32,f_webp"), run("w_32,f_webp,cs_keep")]);
    expect(kept.body.equals(plain.body)).toBe(true);
    const metadata = await sharp(kept.body).metadata();
    expect(metadata.space).toBe("srgb");
    expect(metadata.icc).toBeUndefined();
  });
});

import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations, type ImageOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import type { WatermarkPlacement } from "@/server/image/types";
import { place, type ResolvedPlacement } from "@/server/image/watermark";
import { animatedGif, near, noisyJpeg, pixel, solid, type Rgb } from "./generate";

const RED: Rgb = [255, 0, 0];
const BLUE: Rgb = [0, 0, 255];
const GREEN: Rgb = [0, 255, 0];
const CORNER: ResolvedPlacement = { opacity: 1, gravity: "southeast", x: 10, y: 5, scale: 0.25 };

let blue: Buffer; // 400×200 PNG, solid blue
let mark: Buffer; // 100×50 PNG, solid red

function transform(input: Buffer, segment: string, placement: WatermarkPlacement, watermark: Buffer | null = mark) {
  const ops: ImageOperations = { ...parseOperations(segment), watermark: placement };
  return transformImage(input, ops, { accept: null, watermark: watermark ?? undefined }, DEFAULT_TRANSFORM_LIMITS);
}

beforeAll(async () => {
  configureSharp();
  blue = await solid(400, 200, BLUE).png().toBuffer();
  mark = await solid(100, 50, RED).png().toBuffer();
});

describe("the watermark over the output", () => {
  it("sits at its gravity, in from the edges, at its share of the output's width", async () => {
    // 200×100 output; the mark scaled to 50×25 at left 200-50-10 = 140, top 100-25-5 = 70.
    const result = await transform(blue, "w_200,f_png", CORNER);
    expect([result.width, result.height]).toEqual([200, 100]);
    expect(near(await pixel(result.body, 140, 70), [...RED, 255], 2)).toBe(true);
    expect(near(await pixel(result.body, 189, 94), [...RED, 255], 2)).toBe(true);
    for (const [x, y] of [
      [138, 80],
      [160, 68],
      [191, 80],
      [160, 96],
    ] as const) {
      expect(near(await pixel(result.body, x, y), [...BLUE, 255], 2)).toBe(true);
    }
  });

  it("fades by its opacity and leaves its transparent parts showing the image", async () => {
    const half = await transform(blue, "w_200,f_png", { ...CORNER, opacity: 0.5 });
    expect(near(await pixel(half.body, 160, 80), [128, 0, 127, 255], 3)).toBe(true);
    // A mark that is a red square with a transparent right half.
    const split = await sharp({
      create: { width: 100, height: 50, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([{ input: await solid(50, 50, RED).png().toBuffer(), left: 0, top: 0 }])
      .png()
      .toBuffer();
    const result = await transform(blue, "w_200,f_png", CORNER, split);
    expect(near(await pixel(result.body, 145, 80), [...RED, 255], 2)).toBe(true);
    expect(near(await pixel(result.body, 185, 80), [...BLUE, 255], 2)).toBe(true);
    // A one-channel grey mark (no alpha, no colour) is drawn as grey.
    const grey = await solid(100, 50, [200, 200, 200]).toColourspace("b-w").png().toBuffer();
    expect((await sharp(grey).metadata()).channels).toBe(1);
    const greyed = await transform(blue, "w_200,f_png", CORNER, grey);
    expect(near(await pixel(greyed.body, 160, 80), [200, 200, 200, 255], 3)).toBe(true);
  });

  it("works into formats without alpha, at dpr, and never grows past the output", async () => {
    const jpeg = await transform(blue, "w_200,f_jpeg,q_95", CORNER);
    expect(jpeg.format).toBe("jpeg");
    expect((await sharp(jpeg.body).metadata()).channels).toBe(3);
    expect(near(await pixel(jpeg.body, 165, 82), [...RED, 255], 20)).toBe(true);
    // dpr_2: a 400×200 output, offsets doubled: the mark (100×50) at 400-100-20, 200-50-10.
    const retina = await transform(blue, "w_200,dpr_2,f_png", CORNER);
    expect([retina.width, retina.height]).toEqual([400, 200]);
    expect(near(await pixel(retina.body, 280, 140), [...RED, 255], 2)).toBe(true);
    expect(near(await pixel(retina.body, 278, 140), [...BLUE, 255], 2)).toBe(true);
    expect(near(await pixel(retina.body, 380, 140), [...BLUE, 255], 2)).toBe(true);
    // Its own size (scale 0) is 100×50; on a 40×20 output it shrinks to fit, whatever the offsets.
    const tiny = await transform(blue, "w_40,f_png", { ...CORNER, scale: 0, x: 500, y: 500 });
    for (const [x, y] of [
      [0, 0],
      [39, 19],
      [20, 10],
    ] as const)
      expect(near(await pixel(tiny.body, x, y), [...RED, 255], 2)).toBe(true);
  });

  it("is drawn after pixelate and padding, and re-encoded by maxbytes_", async () => {
    const pixelated = await transform(blue, "w_200,pixelate_20,pad_10,bg_00ff00,f_png", { ...CORNER, x: 0, y: 0 });
    expect([pixelated.width, pixelated.height]).toEqual([220, 120]);
    // Padding included: the mark (55×28 of a 220-wide output) reaches the padded corner, with sharp edges.
    expect(near(await pixel(pixelated.body, 219, 119), [...RED, 255], 2)).toBe(true);
    expect(near(await pixel(pixelated.body, 165, 92), [...RED, 255], 2)).toBe(true);
    expect(near(await pixel(pixelated.body, 164, 92), [...BLUE, 255], 2)).toBe(true);
    expect(near(await pixel(pixelated.body, 5, 5), [...GREEN, 255], 2)).toBe(true);
    const photo = await noisyJpeg(1200, 800);
    const plain = await transform(photo, "w_600,f_webp", CORNER);
    const fitted = await transform(photo, "w_600,f_webp,maxbytes_8192", CORNER);
    expect(fitted.body.length).toBeLessThan(plain.body.length);
    expect(near(await pixel(fitted.body, 520, 380), [...RED, 255], 60)).toBe(true);
  });

  it("gives an animation's first frame, and refuses to run without its image", async () => {
    const gif = await animatedGif(40, 40, [GREEN, BLUE]);
    const still = await transform(gif, "f_webp", { ...CORNER, scale: 0.5 });
    expect((await sharp(still.body).metadata()).pages ?? 1).toBe(1);
    expect(near(await pixel(still.body, 5, 5), [...GREEN, 255], 8)).toBe(true);
    await expect(transform(blue, "w_200,f_png", CORNER, null)).rejects.toMatchObject({ code: "INTERNAL" });
    await expect(transform(blue, "w_200,f_png", { opacity: 1 })).rejects.toMatchObject({ code: "INTERNAL" });
  });
});

describe("placement", () => {
  const output = { width: 100, height: 80 };
  const box = { width: 20, height: 10 };
  it.each([
    ["northwest", 5, 6, { left: 5, top: 6 }],
    ["north", 5, 6, { left: 45, top: 6 }],
    ["northeast", 5, 6, { left: 75, top: 6 }],
    ["east", 5, 6, { left: 75, top: 41 }],
    ["center", 5, 6, { left: 45, top: 41 }],
    ["south", 0, 0, { left: 40, top: 70 }],
    ["southwest", 0, 0, { left: 0, top: 70 }],
    ["west", 500, 500, { left: 80, top: 70 }],
  ] as const)("%s with offsets %i, %i", (gravity, x, y, expected) => {
    expect(place({ opacity: 1, gravity, x, y, scale: 0 }, 1, output, box)).toEqual(expected);
  });
});

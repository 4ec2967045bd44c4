import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { captionOverlay } from "@/server/image/caption";
import { configureSharp, transformImage } from "@/server/image/engine";
import { TEXT_DEFAULTS } from "@/server/image/operations/text-tokens";
import type { TextStyle } from "@/server/image/types";
import { animatedGif, near, pixel, solid, type Rgb } from "./generate";

/**
 * txt_ through the real text engine (Pango, with the bundled DejaVu faces): where the caption lands,
 * that markup in it is drawn as typed, that bidirectional text and combining marks are laid out, and
 * that no caption, however long or large, draws past the output.
 */
const BLUE: Rgb = [0, 0, 255];
const caption = (text: string) => `txt_${Buffer.from(text).toString("base64url")}`;
const WIDE = { width: 2000, height: 400 };

let blue: Buffer; // 400×200 PNG

beforeAll(async () => {
  configureSharp();
  blue = await solid(400, 200, BLUE).png().toBuffer();
});

function transform(input: Buffer, segment: string) {
  return transformImage(input, parseOperations(segment), { accept: null }, DEFAULT_TRANSFORM_LIMITS);
}

/** Bounding box of the pixels where `inked` holds, or null when there are none. */
async function ink(image: Buffer, inked: (rgba: number[]) => boolean) {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let box: { left: number; top: number; right: number; bottom: number } | null = null;
  for (let y = 0; y < info.height; y++)
    for (let x = 0; x < info.width; x++) {
      const at = (y * info.width + x) * 4;
      if (!inked([data[at]!, data[at + 1]!, data[at + 2]!, data[at + 3]!])) continue;
      box = box
        ? { left: Math.min(box.left, x), top: Math.min(box.top, y), right: Math.max(box.right, x), bottom: y }
        : { left: x, top: y, right: x, bottom: y };
    }
  return box;
}
const white = ([r, g, b]: number[]) => r! > 128 && g! > 128 && b! > 200;

function overlay(text: string, style: Partial<TextStyle> = {}, output = WIDE, dpr = 1) {
  return captionOverlay(text, { ...TEXT_DEFAULTS, ...style }, dpr, output);
}

describe("a caption over the output", () => {
  it("lands in from the corner its gravity names, at its size, and nowhere else", async () => {
    const result = await transform(blue, `w_200,f_png,${caption("Hi")},txtstyle_20_ffffff_southeast_10_5`);
    expect([result.width, result.height]).toEqual([200, 100]);
    const box = (await ink(result.body, white))!;
    expect(box.right).toBeLessThanOrEqual(200 - 10);
    expect(box.right).toBeGreaterThan(200 - 10 - 4);
    expect(box.bottom).toBeLessThanOrEqual(100 - 5);
    expect(box.bottom).toBeGreaterThan(100 - 5 - 8);
    // "Hi" at 20 px: a capital's height is about 0.73 of the size.
    expect(box.bottom - box.top + 1).toBeGreaterThanOrEqual(13);
    expect(box.bottom - box.top + 1).toBeLessThanOrEqual(16);
    expect(near(await pixel(result.body, 20, 20), [...BLUE, 255], 2)).toBe(true);
  });

  it("scales with dpr, like every other output pixel", async () => {
    const one = (await ink((await transform(blue, `w_200,f_png,${caption("Hi")}`)).body, white))!;
    const two = (await ink((await transform(blue, `w_200,dpr_2,f_png,${caption("Hi")}`)).body, white))!;
    expect(two.bottom - two.top).toBeGreaterThanOrEqual(2 * (one.bottom - one.top) - 2);
    expect(two.bottom - two.top).toBeLessThanOrEqual(2 * (one.bottom - one.top) + 2);
  });

  it("draws its colour's alpha, and a box behind it when asked", async () => {
    const faded = await transform(blue, `w_200,f_png,${caption("█")},txtstyle_60_ff000080_center_0_0`);
    expect(near(await pixel(faded.body, 100, 50), [128, 0, 127, 255], 4)).toBe(true);
    const boxed = await transform(blue, `w_200,f_png,${caption("i")},txtstyle_40_ffffff_center_0_0_sans_000000`);
    const black = (await ink(boxed.body, ([r, g, b]) => r! < 20 && g! < 20 && b! < 20))!;
    const glyph = (await ink(boxed.body, white))!;
    // The box reaches past the glyph on every side.
    expect(black.left).toBeLessThan(glyph.left);
    expect(black.right).toBeGreaterThan(glyph.right);
    expect(black.top).toBeLessThan(glyph.top);
    expect(black.bottom).toBeGreaterThan(glyph.bottom);
  });

  it("gives an animation's first frame as a still", async () => {
    const gif = await animatedGif(60, 40, [BLUE, [255, 0, 0]]);
    const result = await transform(gif, `f_gif,${caption("Hi")},txtstyle_10`);
    expect((await sharp(result.body).metadata()).pages ?? 1).toBe(1);
  });
});

describe("a caption's bounds", () => {
  it("takes any dpr the URL may carry, not only those that make a whole dpi", async () => {
    const result = await transform(blue, `w_100,dpr_1.1,f_png,${caption("Hi")}`);
    expect([result.width, result.height]).toEqual([110, 55]);
    expect(await ink(result.body, white)).not.toBeNull();
  });

  it("fits a caption wider than a narrow output's room, rather than drawing it at its size", async () => {
    for (const count of [27, 80]) {
      const drawn = await overlay("W".repeat(count), { size: 256 }, { width: 4, height: 300 }, 4);
      expect(drawn.width).toBeLessThanOrEqual(4);
      expect(drawn.height).toBeLessThanOrEqual(300);
    }
    // A glyph wider than the room at its size: made smaller to fit, not cut.
    const w = await overlay("W", { size: 32, x: 0, y: 0 }, { width: 20, height: 40 });
    expect(w.width).toBeLessThanOrEqual(20);
    expect(w.width).toBeGreaterThan(10);
  });

  it("never draws a caption larger than asked, however much room the output has", async () => {
    const sentence = "A caption of a sentence or two, long enough that its worst layout is a large surface.";
    const long = await overlay(sentence, { size: 48 }, { width: 4000, height: 3000 });
    expect(long.height).toBeLessThan(2 * 48);
    const padded = await overlay(`Hi${"\u200b".repeat(198)}`, { size: 64 }, { width: 1200, height: 900 });
    expect(padded.height).toBeLessThan(64);
  });

  it("keeps offsets to a quarter of the output's side where they place it, as where they size it", async () => {
    const drawn = await overlay("Hi", { gravity: "west", x: 1000, y: 0 }, { width: 400, height: 300 });
    expect(drawn.left).toBe(100);
  });

  it("puts nothing over the output for characters that draw nothing", async () => {
    const drawn = await overlay("\u2800");
    expect([drawn.width, drawn.height, drawn.data.readUInt32BE(0)]).toEqual([1, 1, 0]);
    const result = await transform(blue, `w_100,f_png,${caption("\u2800")}`);
    expect(await ink(result.body, white)).toBeNull();
  });
});

describe("the text engine", () => {
  it("draws markup as typed: a span asking for a huge size is a line of small glyphs", async () => {
    const plain = await overlay("A");
    const attack = await overlay('<span size="900000">A</span>');
    // Drawn at the size asked for (32 px: a line under 2 × 32 px), not at 900000 thousandths of a point.
    expect(attack.height).toBeLessThan(2 * 32);
    expect(attack.width).toBeGreaterThan(10 * plain.width);
    const entity = await overlay("&lt;");
    expect(entity.width).toBeGreaterThan(2 * (await overlay("<")).width);
    // Through the pipeline: the output keeps its size, the caption within it.
    const result = await transform(blue, `w_200,f_png,${caption('<span size="900000">A</span>&amp;')}`);
    expect([result.width, result.height]).toEqual([200, 100]);
  });

  it("lays right-to-left text out right to left", async () => {
    // Hebrew alef then bet, as typed, is drawn bet-left-of-alef: the same pixels as bet, alef forced left to right.
    const bidi = await overlay("אב");
    const forced = await overlay("\u202Dבא\u202C");
    const unordered = await overlay("\u202Dאב\u202C");
    expect(bidi.width).toBe(forced.width);
    expect(bidi.data.equals(forced.data)).toBe(true);
    expect(bidi.data.equals(unordered.data)).toBe(false);
  });

  it("sets a combining mark on its letter: e + U+0301 is drawn as é", async () => {
    const composed = await overlay("é");
    const combined = await overlay("e\u0301");
    expect([combined.width, combined.height]).toEqual([composed.width, composed.height]);
  });

  it("keeps the size asked for when the caption fits, and never grows a short one", async () => {
    const small = await overlay("Hi", { size: 20 });
    const large = await overlay("Hi", { size: 80 });
    expect(large.height).toBeGreaterThan(3.5 * small.height);
    expect(large.height).toBeLessThan(4.5 * small.height);
  });

  it("fits a caption too large for the output within it, at any length", async () => {
    const output = { width: 200, height: 100 };
    for (const text of ["x".repeat(200), Array.from({ length: 100 }, () => "W").join("\n"), "W ".repeat(100)]) {
      const drawn = await overlay(text, { size: 256 }, output, 4);
      // 16 px × dpr 4 in from each edge is more than a quarter of the width: a quarter it is.
      expect(drawn.width).toBeLessThanOrEqual(output.width / 2);
      expect(drawn.height).toBeLessThanOrEqual(output.height);
      expect(drawn.left).toBeGreaterThanOrEqual(0);
      expect(drawn.top).toBeGreaterThanOrEqual(0);
    }
    const result = await transform(blue, `w_200,dpr_4,f_png,${caption("x".repeat(200))},txtstyle_256`);
    expect([result.width, result.height]).toEqual([400, 200]);
    expect(await ink(result.body, white)).not.toBeNull();
  });
});

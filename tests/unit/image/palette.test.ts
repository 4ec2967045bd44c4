import { describe, expect, it } from "vitest";
import { PALETTE_COLOURS, paletteOf } from "../../../src/server/image/palette";

/** An RGBA buffer of `count` pixels per colour, in the order given. */
function pixels(...runs: [rgba: [number, number, number, number], count: number][]): Uint8Array {
  return Uint8Array.from(runs.flatMap(([rgba, count]) => Array.from({ length: count }, () => rgba).flat()));
}
const distance = (hex: string, rgb: number[]) =>
  Math.max(...[1, 3, 5].map((i, c) => Math.abs(parseInt(hex.slice(i, i + 2), 16) - rgb[c]!)));

describe("paletteOf", () => {
  it("names each colour with its share of the pixels, most common first", () => {
    const palette = paletteOf(pixels([[220, 20, 30, 255], 600], [[10, 40, 200, 255], 300], [[250, 240, 10, 255], 100]));
    expect(palette.map(({ share }) => share)).toEqual([0.6, 0.3, 0.1]);
    expect(distance(palette[0]!.colour, [220, 20, 30])).toBeLessThanOrEqual(4);
    expect(distance(palette[1]!.colour, [10, 40, 200])).toBeLessThanOrEqual(4);
    expect(distance(palette[2]!.colour, [250, 240, 10])).toBeLessThanOrEqual(4);
  });

  it("counts only the pixels a viewer sees: transparent and faint ones are left out of colours and shares", () => {
    const palette = paletteOf(pixels([[0, 200, 0, 255], 100], [[255, 0, 0, 0], 900], [[0, 0, 255, 127], 500]));
    expect(palette).toHaveLength(1);
    expect(palette[0]!.share).toBe(1);
    expect(distance(palette[0]!.colour, [0, 200, 0])).toBeLessThanOrEqual(4);
    expect(paletteOf(pixels([[255, 255, 255, 0], 400]))).toEqual([]);
    expect(paletteOf(new Uint8Array(0))).toEqual([]);
  });

  it("still names a translucent image's colours, measured against its most opaque pixels", () => {
    const palette = paletteOf(pixels([[200, 100, 0, 90], 300], [[0, 100, 200, 60], 100], [[9, 9, 9, 20], 500]));
    expect(palette.map(({ share }) => share)).toEqual([0.75, 0.25]);
    expect(distance(palette[0]!.colour, [200, 100, 0])).toBeLessThanOrEqual(4);
  });

  it("fills its size on a noisy image, and the shares add up to 1", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) >>> 16) & 255;
    const noise = Uint8Array.from({ length: 100 * 100 * 4 }, (_, i) => (i % 4 === 3 ? 255 : random()));
    const palette = paletteOf(noise);
    expect(palette).toHaveLength(PALETTE_COLOURS);
    expect(palette.reduce((sum, { share }) => sum + share, 0)).toBeCloseTo(1, 9);
    for (const { colour } of palette) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
    expect([...palette].sort((a, b) => b.share - a.share)).toEqual(palette);
  });

  it("makes a lone pixel its own palette, and ignores a trailing partial pixel", () => {
    const palette = paletteOf(Uint8Array.from([9, 9, 9, 255, 1, 2]));
    expect(palette).toEqual([{ colour: "#0c0c0c", share: 1 }]);
  });
});

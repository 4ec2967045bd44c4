import { describe, expect, it } from "vitest";
import { emptyPlanes } from "@/server/image/quality/planes";
import { positiveXyb } from "@/server/image/quality/xyb";

/** The conversion as published, with Math.cbrt: what the interpolated table must match. */
function published(red: number, green: number, blue: number): [number, number, number] {
  const bias = 0.0037930732552754493;
  const root = (x: number) => Math.cbrt(Math.max(x, 0)) - Math.cbrt(bias);
  const l = root(0.3 * red + (1 - 0.3 - 0.078) * green + 0.078 * blue + bias);
  const m = root(0.23 * red + (1 - 0.23 - 0.078) * green + 0.078 * blue + bias);
  const s = root(
    0.2434226892454782 * red + 0.2047674442449682 * green + (1 - 0.2434226892454782 - 0.2047674442449682) * blue + bias,
  );
  return [0.5 * (l - m) * 14 + 0.42, 0.5 * (l + m) + 0.01, s - 0.5 * (l + m) + 0.55];
}

describe("XYB", () => {
  it("converts as the published formula with Math.cbrt does, to the 32-bit float", () => {
    // Every grey, pseudo-random colours, the corners of the cube, and values outside 0..1 (which the
    // metric never makes) that the table does not cover.
    const pixels: [number, number, number][] = [
      ...Array.from({ length: 256 }, (_, v): [number, number, number] => [v / 255, v / 255, v / 255]),
      ...Array.from({ length: 1000 }, (_, i): [number, number, number] => [
        (i * 0.618) % 1,
        (i * 0.414) % 1,
        (i * 0.732) % 1,
      ]),
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
      [1, 1, 0],
      [3, 2.5, 4],
      [-1, -1, -1],
    ];
    const linear = emptyPlanes(pixels.length, 1);
    pixels.forEach(([r, g, b], i) => {
      linear.channels[0][i] = r;
      linear.channels[1][i] = g;
      linear.channels[2][i] = b;
    });
    const xyb = positiveXyb(linear);
    pixels.forEach((_, i) => {
      const expected = published(linear.channels[0][i]!, linear.channels[1][i]!, linear.channels[2][i]!);
      for (let c = 0; c < 3; c++) expect(xyb.channels[c]![i]).toBeCloseTo(Math.fround(expected[c]!), 6);
    });
  });
});

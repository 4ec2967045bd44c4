import { describe, expect, it } from "vitest";
import { blur, blurProduct } from "@/server/image/quality/gaussian-blur";

/** The sampled, normalised Gaussian of σ 1.5 the recursive filter approximates. */
function gaussian(d: number): number {
  let total = 0;
  for (let k = -20; k <= 20; k++) total += Math.exp(-(k * k) / 4.5);
  return Math.exp(-(d * d) / 4.5) / total;
}

describe("the metric's blur", () => {
  // Odd and unequal sides: the columns are filtered as rows of a transposed plane, two at a time.
  it.each([
    [31, 17, 12, 9],
    [17, 31, 3, 20],
    [9, 8, 4, 4],
  ])("spreads one pixel of a %i×%i plane as a Gaussian of σ 1.5 around (%i, %i)", (width, height, x0, y0) => {
    const plane = new Float32Array(width * height);
    plane[y0 * width + x0] = 1;
    const out = blur(plane, width, height, new Float32Array(width * height));
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        // The recursive filter approximates the kernel to about 1 % of its peak (0.07).
        expect(Math.abs(out[y * width + x]! - gaussian(x - x0) * gaussian(y - y0))).toBeLessThan(0.001);
      }
    }
  });

  it("writes into the plane it is given and reads zero outside the image", () => {
    const width = 20;
    const height = 11;
    const ones = new Float32Array(width * height).fill(1);
    const into = new Float32Array(width * height);
    expect(blur(ones, width, height, new Float32Array(width * height), into)).toBe(into);
    const centre = into[5 * width + 10]!;
    const corner = into[0]!;
    expect(centre).toBeCloseTo(1, 3);
    // A corner sees a quarter of the kernel inside the image, plus its own row and column.
    expect(corner).toBeGreaterThan(0.25);
    expect(corner).toBeLessThan(0.45);
  });

  it("blurs a product of two planes as it blurs the plane of their products, to the bit", () => {
    const width = 23;
    const height = 14;
    const a = Float32Array.from({ length: width * height }, (_, i) => 1 + Math.sin(i));
    const b = Float32Array.from({ length: width * height }, (_, i) => Math.cos(0.7 * i));
    const products = a.map((v, i) => v * b[i]!);
    const scratch = new Float32Array(width * height);
    expect(blurProduct(a, b, width, height, scratch)).toEqual(blur(products, width, height, scratch));
  });
});

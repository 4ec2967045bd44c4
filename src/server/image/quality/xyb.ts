import { emptyPlanes, type Planes } from "./planes";

/**
 * JPEG XL's XYB colour space, from linear sRGB: an LMS-like opsin absorbance mix, a cube root, then
 * X = (L − M) / 2, Y = (L + M) / 2, B = S. The constants are the published ones (libjxl's
 * opsin parameters); the metric then shifts and scales each channel into about 0..1.
 */
// Each row sums to 1; libjxl defines the last of each row as 1 minus the others.
const M20 = 0.2434226892454782;
const M21 = 0.2047674442449682;
const MIX = [
  [0.3, 1 - 0.3 - 0.078, 0.078],
  [0.23, 1 - 0.23 - 0.078, 0.078],
  [M20, M21, 1 - M20 - M21],
] as const;
const BIAS = 0.0037930732552754493;
const CBRT_BIAS = Math.cbrt(BIAS);

const word = new Float32Array(1);
const bits = new Uint32Array(word.buffer);

/**
 * The cube root of x ≥ 0 to within 1e-13 of Math.cbrt, about a third faster here: a first guess from
 * the float's bits (its exponent divided by three), then two of Halley's steps, each tripling the
 * digits that are right.
 */
function cubeRoot(x: number): number {
  if (x <= 0) return 0;
  word[0] = x;
  bits[0] = Math.floor(bits[0]! / 3) + 709921077;
  let y = word[0]!;
  let y3 = y * y * y;
  y = (y * (y3 + 2 * x)) / (2 * y3 + x);
  y3 = y * y * y;
  return (y * (y3 + 2 * x)) / (2 * y3 + x);
}

/** Linear sRGB planes → XYB planes in SSIMULACRA 2's positive ranges (X·14 + 0.42, Y + 0.01, B − Y + 0.55). */
export function positiveXyb(linear: Planes): Planes {
  const out = emptyPlanes(linear.width, linear.height);
  const [r, g, b] = linear.channels;
  const [x, y, bOut] = out.channels;
  const [m0, m1, m2] = MIX;
  for (let i = 0; i < r.length; i++) {
    const red = r[i]!;
    const green = g[i]!;
    const blue = b[i]!;
    const l = cubeRoot(Math.max(m0[0] * red + m0[1] * green + m0[2] * blue + BIAS, 0)) - CBRT_BIAS;
    const m = cubeRoot(Math.max(m1[0] * red + m1[1] * green + m1[2] * blue + BIAS, 0)) - CBRT_BIAS;
    const s = cubeRoot(Math.max(m2[0] * red + m2[1] * green + m2[2] * blue + BIAS, 0)) - CBRT_BIAS;
    const luma = 0.5 * (l + m);
    x[i] = 0.5 * (l - m) * 14 + 0.42;
    y[i] = luma + 0.01;
    bOut[i] = s - luma + 0.55;
  }
  return out;
}

import { emptyPlanes, type Planes } from "./planes";

/**
 * JPEG XL's XYB colour space, from linear sRGB: an LMS-like opsin absorbance mix, a cube root, then
 * X = (L − M) / 2, Y = (L + M) / 2, B = S. The constants are the published ones (libjxl's
 * opsin parameters); the metric then shifts and scales each channel into about 0..1. Each constant is
 * its own binding rather than an entry of a nested array, which V8 loaded afresh at every pixel.
 */
// Each row sums to 1; libjxl defines the last of each row as 1 minus the others.
const M00 = 0.3;
const M01 = 1 - 0.3 - 0.078;
const M02 = 0.078;
const M10 = 0.23;
const M11 = 1 - 0.23 - 0.078;
const M12 = 0.078;
const M20 = 0.2434226892454782;
const M21 = 0.2047674442449682;
const M22 = 1 - M20 - M21;
const BIAS = 0.0037930732552754493;
const CBRT_BIAS = Math.cbrt(BIAS);

const word = new Float32Array(1);
const bits = new Int32Array(word.buffer);

function floatOf(b: number): number {
  bits[0] = b;
  return word[0]!;
}

/**
 * The cube root's first guesses: the root of the middle of each of 512 steps per power of two, over
 * [2⁻⁹, 2), where every input here lies (a mix of linear values in 0..1, plus BIAS).
 */
const MANTISSA_BITS = 9;
const SHIFT = 23 - MANTISSA_BITS;
const FIRST = 118 << MANTISSA_BITS; // 2⁻⁹'s biased exponent
const GUESSES = Float64Array.from({ length: 10 << MANTISSA_BITS }, (_, i) => {
  const lowest = floatOf((FIRST + i) << SHIFT);
  const next = floatOf((FIRST + i + 1) << SHIFT);
  return Math.cbrt((lowest + next) / 2);
});

/**
 * The cube root of x (0 for x ≤ 0): a first guess within 4·10⁻⁴ from the table (indexed by the
 * float's exponent and top mantissa bits), then one Halley step, which cubes the relative error (to
 * under 10⁻¹⁰, far below the planes' 32-bit floats). It replaced a guess from the float's bits
 * divided by three and two Halley steps: two divisions fewer per root, and with the named constants
 * above, an 800×600 image converts in about 8 ms instead of 13.
 */
function cubeRoot(x: number): number {
  word[0] = x;
  const i = (bits[0]! >> SHIFT) - FIRST;
  if (i < 0 || i >= GUESSES.length) return x > 0 ? Math.cbrt(x) : 0;
  const y = GUESSES[i]!;
  const y3 = y * y * y;
  return (y * (y3 + 2 * x)) / (2 * y3 + x);
}

/** Linear sRGB planes → XYB planes in SSIMULACRA 2's positive ranges (X·14 + 0.42, Y + 0.01, B − Y + 0.55). */
export function positiveXyb(linear: Planes, out: Planes = emptyPlanes(linear.width, linear.height)): Planes {
  const [r, g, b] = linear.channels;
  const [x, y, bOut] = out.channels;
  for (let i = 0; i < r.length; i++) {
    const red = r[i]!;
    const green = g[i]!;
    const blue = b[i]!;
    const l = cubeRoot(M00 * red + M01 * green + M02 * blue + BIAS) - CBRT_BIAS;
    const m = cubeRoot(M10 * red + M11 * green + M12 * blue + BIAS) - CBRT_BIAS;
    const s = cubeRoot(M20 * red + M21 * green + M22 * blue + BIAS) - CBRT_BIAS;
    const luma = 0.5 * (l + m);
    x[i] = 0.5 * (l - m) * 14 + 0.42;
    y[i] = luma + 0.01;
    bOut[i] = s - luma + 0.55;
  }
  return out;
}

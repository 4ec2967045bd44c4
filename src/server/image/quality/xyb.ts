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
 * The cube root at the start of each of 1024 steps per power of two over [2⁻⁹, 2), where every input
 * here lies (a mix of linear values in 0..1, plus BIAS), and its rise to the next step's.
 */
const MANTISSA_BITS = 10;
const SHIFT = 23 - MANTISSA_BITS;
const FRACTION_MASK = (1 << SHIFT) - 1;
const FRACTION_SCALE = 1 / (1 << SHIFT);
const FIRST = 118 << MANTISSA_BITS; // 2⁻⁹'s biased exponent
const STEPS = 10 << MANTISSA_BITS;
const ROOTS = Float64Array.from({ length: STEPS + 1 }, (_, i) => Math.cbrt(floatOf((FIRST + i) << SHIFT)));
const RISES = Float64Array.from({ length: STEPS }, (_, i) => ROOTS[i + 1]! - ROOTS[i]!);

/**
 * The cube root of x (0 for x ≤ 0), read off the table between the two steps around x (indexed by the
 * float's exponent and top mantissa bits, the rest of the mantissa the place between them). Over a
 * step 1/1024 of a power of two wide a straight line is within 3·10⁻⁸ of the root (relative), under
 * one unit in the last place of the planes' 32-bit floats (512 steps were not, in X, which scales
 * L − M by 7). It replaced a guess from the table refined by a Halley step, whose division per root
 * made the conversion a fifth of the metric's time; scores move by under 10⁻³ (ssimulacra2-unchanged.test.ts).
 */
function cubeRoot(x: number): number {
  word[0] = x;
  const b = bits[0]!;
  const i = (b >> SHIFT) - FIRST;
  if (i < 0 || i >= STEPS) return x > 0 ? Math.cbrt(x) : 0;
  return ROOTS[i]! + RISES[i]! * ((b & FRACTION_MASK) * FRACTION_SCALE);
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

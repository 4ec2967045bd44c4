/**
 * The metric's blur, as its reference computes it: a Gaussian of σ 1.5 approximated by Charalampidis'
 * recursive filter ("Recursive Implementation of the Gaussian Filter Using Truncated Cosine
 * Functions", 2016: three second-order sections), zero outside the image, rows then columns. The
 * equation numbers below are the paper's.
 */
const SIGMA = 1.5;
/** (57): N. */
const RADIUS = Math.round(3.2795 * SIGMA + 0.2546);

interface Section {
  /** Weight of the two inputs at ±N. */
  input: number;
  /** Weight of the previous output (the one before it weighs −1). */
  previous: number;
}

const SECTIONS: readonly Section[] = (() => {
  const omega = [1, 3, 5].map((k) => (k * Math.PI) / (2 * RADIUS)) as [number, number, number];
  const p = [1 / Math.tan(omega[0] / 2), -1 / Math.tan(omega[1] / 2), 1 / Math.tan(omega[2] / 2)]; // (37)
  const r = [
    (p[0]! * p[0]!) / Math.sin(omega[0]),
    -(p[1]! * p[1]!) / Math.sin(omega[1]),
    (p[2]! * p[2]!) / Math.sin(omega[2]),
  ]; // (44)
  const rho = omega.map((w) => Math.exp(-0.5 * SIGMA * SIGMA * w * w) / RADIUS); // (50)
  const d13 = p[0]! * r[1]! - r[0]! * p[1]!; // (52)
  const d35 = p[1]! * r[2]! - r[1]! * p[2]!;
  const d51 = p[2]! * r[0]! - r[2]! * p[0]!;
  const zeta15 = d35 / d13;
  const zeta35 = d51 / d13;
  const a = inverse([
    [p[0]!, p[1]!, p[2]!],
    [r[0]!, r[1]!, r[2]!],
    [zeta15, zeta35, 1],
  ]); // (56)
  const gamma = [1, RADIUS * RADIUS - SIGMA * SIGMA, zeta15 * rho[0]! + zeta35 * rho[1]! + rho[2]!]; // (55)
  const beta = a.map((row) => row[0]! * gamma[0]! + row[1]! * gamma[1]! + row[2]! * gamma[2]!); // (53)
  return omega.map((w, i) => ({ input: -beta[i]! * Math.cos(w * (RADIUS + 1)), previous: 2 * Math.cos(w) })); // (33)
})();

function inverse(m: number[][]): number[][] {
  const [[a, b, c], [d, e, f], [g, h, i]] = m as [
    [number, number, number],
    [number, number, number],
    [number, number, number],
  ];
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  return [
    [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
    [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
    [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
  ];
}

/**
 * One row of `length` values, `stride` apart from `start`, filtered into `out` at the same places.
 * Outputs start N − 1 steps before the line so the filter has settled by its first value.
 */
function filterLine(input: Float32Array, out: Float32Array, start: number, stride: number, length: number): void {
  const [s1, s2, s3] = SECTIONS as [Section, Section, Section];
  let prev1 = 0,
    prev3 = 0,
    prev5 = 0;
  let before1 = 0,
    before3 = 0,
    before5 = 0;
  for (let n = -RADIUS + 1; n < length; n++) {
    const left = n - RADIUS - 1;
    const right = n + RADIUS - 1;
    const sum = (left >= 0 ? input[start + left * stride]! : 0) + (right < length ? input[start + right * stride]! : 0);
    const out1 = s1.input * sum + s1.previous * prev1 - before1;
    const out3 = s2.input * sum + s2.previous * prev3 - before3;
    const out5 = s3.input * sum + s3.previous * prev5 - before5;
    before1 = prev1;
    before3 = prev3;
    before5 = prev5;
    prev1 = out1;
    prev3 = out3;
    prev5 = out5;
    if (n >= 0) out[start + n * stride] = out1 + out3 + out5;
  }
}

/**
 * The columns, all at once, row by row: the same filter as filterLine with a state per column, so that
 * memory is read in order (a column at a time would miss the cache on every pixel of a wide image).
 */
function filterColumns(input: Float32Array, out: Float32Array, width: number, height: number): void {
  const [s1, s2, s3] = SECTIONS as [Section, Section, Section];
  const { input: in1, previous: prev1 } = s1;
  const { input: in3, previous: prev3 } = s2;
  const { input: in5, previous: prev5 } = s3;

  // Each section's last two outputs per column; the older is overwritten by the new one, then the
  // two swap roles, which saves copying a row of state per row.
  const zeros = new Float32Array(width);
  let prev = [new Float64Array(width), new Float64Array(width), new Float64Array(width)] as const;
  let before = [new Float64Array(width), new Float64Array(width), new Float64Array(width)] as const;
  for (let n = -RADIUS + 1; n < height; n++) {
    const top = n - RADIUS - 1;
    const bottom = n + RADIUS - 1;
    const topRow = top >= 0 ? top * width : -1;
    const bottomRow = bottom < height ? bottom * width : -1;
    const row = n * width;
    const [p1, p3, p5] = prev;
    const [b1, b3, b5] = before;
    // Outside the image is zero: a row past either edge is read from a row of zeros.
    const topFrom = topRow >= 0 ? input : zeros;
    const topAt = Math.max(0, topRow);
    const bottomFrom = bottomRow >= 0 ? input : zeros;
    const bottomAt = Math.max(0, bottomRow);
    for (let x = 0; x < width; x++) {
      const sum = topFrom[topAt + x]! + bottomFrom[bottomAt + x]!;
      const out1 = in1 * sum + prev1 * p1[x]! - b1[x]!;
      const out3 = in3 * sum + prev3 * p3[x]! - b3[x]!;
      const out5 = in5 * sum + prev5 * p5[x]! - b5[x]!;
      b1[x] = out1;
      b3[x] = out3;
      b5[x] = out5;
      if (n >= 0) out[row + x] = out1 + out3 + out5;
    }
    [prev, before] = [before, prev];
  }
}

/** Blurs a width × height plane; `scratch` (the same size) holds the pass between rows and columns. */
export function blur(input: Float32Array, width: number, height: number, scratch: Float32Array): Float32Array {
  const out = new Float32Array(input.length);
  for (let y = 0; y < height; y++) filterLine(input, scratch, y * width, 1, width);
  filterColumns(scratch, out, width, height);
  return out;
}

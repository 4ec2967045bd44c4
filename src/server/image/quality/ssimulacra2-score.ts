import { WEIGHTS } from "./ssimulacra2-weights";

/**
 * One scale's 18 norms, per channel (X, Y, B): SSIM error mean and 4-norm, ringing mean and 4-norm,
 * blurring mean and 4-norm.
 */
export type ScaleNorms = number[];

/** Which of one channel's maps at one scale the score reads: a map whose weights are all 0 is not computed. */
export interface MapsRead {
  ssim: boolean;
  /** The ringing map or the blurring map (both come from the same edge ratio). */
  edges: boolean;
}

/**
 * The weight of one norm (0: mean, 1: 4-norm) of one map (0: SSIM, 1: ringing, 2: blurring), in the
 * reference's order (channel, then each scale computed, then norm, then map). An image too small for
 * all six scales reads fewer weights per channel, the next channel's starting earlier, as the
 * reference does.
 */
function weightOf(scales: number, channel: number, scale: number, norm: number, map: number): number {
  return WEIGHTS[(channel * scales + scale) * 6 + norm * 3 + map]!;
}

/**
 * Per scale, per channel, the maps an image with `scales` scales has weights for. 56 of the 108
 * weights are 0, and some maps have no other: for a six-scale image X and B read only their edges at
 * the first scale (the largest, three quarters of the work) and Y reads nothing at the last. Skipping
 * those maps, and the blurs only they need, leaves the score as it was.
 */
export function mapsRead(scales: number): MapsRead[][] {
  const nonZero = (c: number, s: number, map: number) =>
    weightOf(scales, c, s, 0, map) !== 0 || weightOf(scales, c, s, 1, map) !== 0;
  return Array.from({ length: scales }, (_, s) =>
    [0, 1, 2].map((c) => ({ ssim: nonZero(c, s, 0), edges: nonZero(c, s, 1) || nonZero(c, s, 2) })),
  );
}

/** The weighted sum of every scale's norms, then the published curve onto the score's scale. */
export function scoreOf(norms: readonly ScaleNorms[]): number {
  let sum = 0;
  for (let c = 0; c < 3; c++) {
    for (const [s, scale] of norms.entries()) {
      for (let n = 0; n < 2; n++) {
        for (let map = 0; map < 3; map++) {
          sum += weightOf(norms.length, c, s, n, map) * Math.abs(scale[c * 6 + map * 2 + n]!);
        }
      }
    }
  }
  let s = sum * 0.9562382616834844;
  s = 2.326765642916932 * s - 0.020884521182843837 * s * s + 6.248496625763138e-5 * s * s * s;
  return s > 0 ? 100 - 10 * s ** 0.6276336467831387 : 100;
}

import { WEIGHTS } from "./ssimulacra2-weights";

/**
 * One scale's 18 norms, per channel (X, Y, B): SSIM error mean and 4-norm, ringing mean and 4-norm,
 * blurring mean and 4-norm.
 */
export type ScaleNorms = number[];

/**
 * The weighted sum in the reference's order (channel, then each scale computed, then norm: SSIM,
 * ringing, blurring), then the published curve onto the score's scale. An image too small for all six
 * scales reads fewer weights per channel, the next channel's starting earlier, as the reference does.
 */
export function scoreOf(norms: readonly ScaleNorms[]): number {
  let sum = 0;
  let w = 0;
  for (let c = 0; c < 3; c++) {
    for (const scale of norms) {
      for (let n = 0; n < 2; n++) {
        for (let map = 0; map < 3; map++) sum += WEIGHTS[w++]! * Math.abs(scale[c * 6 + map * 2 + n]!);
      }
    }
  }
  let s = sum * 0.9562382616834844;
  s = 2.326765642916932 * s - 0.020884521182843837 * s * s + 6.248496625763138e-5 * s * s * s;
  return s > 0 ? 100 - 10 * s ** 0.6276336467831387 : 100;
}

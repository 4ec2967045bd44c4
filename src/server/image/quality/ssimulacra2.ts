import { blur } from "./gaussian-blur";
import { halved, linearPlanes, type Planes } from "./planes";
import { scoreOf, type ScaleNorms } from "./ssimulacra2-score";
import { positiveXyb } from "./xyb";

/** Raw 8-bit sRGB pixels, as sharp's `.raw()` gives them. */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

const SCALES = 6;
const C2 = 0.0009;

/** What the original contributes at one scale, computed once however many encodes it is compared with. */
interface ScaleReference {
  xyb: Planes;
  /** Per channel: the blurred image (μ) and the blurred square (σ² + μ²). */
  mean: Float32Array[];
  meanOfSquares: Float32Array[];
}

/**
 * SSIMULACRA 2 (Jon Sneyers, Cloudinary; 2022, revised April 2023): how close a distorted image looks
 * to `original`, 100 for identical, about 90 visually lossless, 70 high quality, 50 medium, lower is
 * worse. Written from the published description: both images in XYB, at 6 scales (halved in linear
 * RGB each time), three error maps per channel (SSIM without its luminance denominator; "ringing",
 * edges the original does not have; "blurring", edges the distorted lost), each reduced to its mean
 * and its 4-norm; a weighted sum of those 108 numbers, mapped onto the score's scale.
 *
 * Returns a scorer for encodes of `original`: the original's side of every scale is computed here,
 * once, so that a search over qualities pays only for each encode's side. Images with alpha are scored
 * over a dark and a light grey (0.1 and 0.9), the worse of the two, as libjxl's ssimulacra2 tool does:
 * over one mid grey, errors in the alpha of mid-grey content would not show.
 */
export function ssimulacra2Against(original: RawImage): (distorted: RawImage) => number {
  const { width, height } = original;
  // The reference scores anything smaller as identical (it computes no scale at all).
  if (width < 8 || height < 8) throw new RangeError("SSIMULACRA 2 needs at least 8×8 pixels");
  const backgrounds = original.channels === 4 ? [0.1, 0.9] : [0.5];
  const prepared = backgrounds.map((background) => ({
    background,
    scales: prepare(linearPlanes(original.data, width, height, original.channels, background)),
  }));
  return (distorted) => {
    if (distorted.width !== width || distorted.height !== height) {
      throw new RangeError("SSIMULACRA 2 compares images of the same size");
    }
    const scores = prepared.map(({ background, scales }) =>
      compare(scales, linearPlanes(distorted.data, width, height, distorted.channels, background)),
    );
    return Math.min(...scores);
  };
}

/** One comparison: `ssimulacra2Against(original)(distorted)`. */
export function ssimulacra2(original: RawImage, distorted: RawImage): number {
  return ssimulacra2Against(original)(distorted);
}

function prepare(linear: Planes): ScaleReference[] {
  const scales: ScaleReference[] = [];
  for (let scale = 0; scale < SCALES && linear.width >= 8 && linear.height >= 8; scale++) {
    if (scale > 0) linear = halved(linear);
    const xyb = positiveXyb(linear);
    const { width, height } = xyb;
    const scratch = new Float32Array(width * height);
    scales.push({
      xyb,
      mean: xyb.channels.map((a) => blur(a, width, height, scratch)),
      meanOfSquares: xyb.channels.map((a) =>
        blur(
          a.map((v) => v * v),
          width,
          height,
          scratch,
        ),
      ),
    });
  }
  return scales;
}

function compare(scales: readonly ScaleReference[], linear: Planes): number {
  const norms: ScaleNorms[] = [];
  for (const [scale, reference] of scales.entries()) {
    if (scale > 0) linear = halved(linear);
    norms.push(scaleNorms(reference, positiveXyb(linear)));
  }
  return scoreOf(norms);
}

function scaleNorms(reference: ScaleReference, distorted: Planes): ScaleNorms {
  const { width, height } = distorted;
  const pixels = width * height;
  // Five planes for the whole scale, each channel's overwriting the last's.
  const plane = () => new Float32Array(pixels);
  const [scratch, product, s22, s12, mu2] = [plane(), plane(), plane(), plane(), plane()];
  const blurredProduct = (a: Float32Array, b: Float32Array, into: Float32Array) => {
    for (let i = 0; i < pixels; i++) product[i] = a[i]! * b[i]!;
    return blur(product, width, height, scratch, into);
  };
  const out: ScaleNorms = [];
  for (let c = 0; c < 3; c++) {
    const a = reference.xyb.channels[c]!;
    const b = distorted.channels[c]!;
    const mu1 = reference.mean[c]!;
    const s11 = reference.meanOfSquares[c]!;
    blurredProduct(b, b, s22);
    blurredProduct(a, b, s12);
    blur(b, width, height, scratch, mu2);
    let ssim1 = 0,
      ssim4 = 0,
      ringing1 = 0,
      ringing4 = 0,
      blurring1 = 0,
      blurring4 = 0;
    for (let i = 0; i < pixels; i++) {
      const m1 = mu1[i]!;
      const m2 = mu2[i]!;
      const numM = 1 - (m1 - m2) * (m1 - m2);
      const numS = 2 * (s12[i]! - m1 * m2) + C2;
      const denomS = s11[i]! - m1 * m1 + (s22[i]! - m2 * m2) + C2;
      const ssim = 1 - (numM * numS) / denomS;
      if (ssim > 0) {
        ssim1 += ssim;
        ssim4 += ssim * ssim * ssim * ssim;
      }
      // > 0: the distorted has an edge where the original is smooth; < 0: it lost one the original has.
      const edge = (1 + Math.abs(b[i]! - m2)) / (1 + Math.abs(a[i]! - m1)) - 1;
      const fourth = edge * edge * edge * edge;
      if (edge > 0) {
        ringing1 += edge;
        ringing4 += fourth;
      } else {
        blurring1 -= edge;
        blurring4 += fourth;
      }
    }
    const root4 = (sum: number) => Math.sqrt(Math.sqrt(sum / pixels));
    out.push(ssim1 / pixels, root4(ssim4), ringing1 / pixels, root4(ringing4), blurring1 / pixels, root4(blurring4));
  }
  return out;
}

import { edgeNorms, ssimNorms } from "./error-maps";
import { blur, blurProduct } from "./gaussian-blur";
import { emptyPlanes, halved, linearPlanes, type Planes } from "./planes";
import { mapsRead, scoreOf, type MapsRead, type ScaleNorms } from "./ssimulacra2-score";
import { positiveXyb } from "./xyb";

/** Raw 8-bit sRGB pixels, as sharp's `.raw()` gives them. */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

const SCALES = 6;

/** What the original contributes at one scale, computed once however many encodes it is compared with. */
interface ScaleReference {
  xyb: Planes;
  /** Per channel, the blurred image (μ1); null where the score reads none of the channel's maps. */
  mean: (Float32Array | null)[];
  /** Per channel, the blurred square (σ1² + μ1²); null where it reads no SSIM. */
  meanOfSquares: (Float32Array | null)[];
  reads: MapsRead[];
}

/**
 * The planes one image's side works in at one scale. A comparison (and the original's side, while it
 * is prepared) only uses them while it runs, synchronously, so every scorer of one size shares one
 * set (sharedWorkspace): made afresh, each new plane's pages are faulted in and later collected, about
 * 10 ms of a 100 ms pair at 800×600, and several searches at once held a set each.
 */
interface ScaleWork {
  linear: Planes;
  xyb: Planes;
  /** These four are the first scale's size, shared by every scale (each reads only its own w × h). */
  scratch: Float32Array;
  mu2: Float32Array;
  s22: Float32Array;
  s12: Float32Array;
}

/**
 * SSIMULACRA 2 (Jon Sneyers, Cloudinary; 2022, revised April 2023): how close a distorted image looks
 * to `original`, 100 for identical, about 90 visually lossless, 70 high quality, 50 medium, lower is
 * worse. Written from the published description: both images in XYB, at 6 scales (halved in linear
 * RGB each time), three error maps per channel (SSIM without its luminance denominator; "ringing",
 * edges the original does not have; "blurring", edges the distorted lost), each reduced to its mean
 * and its 4-norm; a weighted sum of those 108 numbers, mapped onto the score's scale. Maps whose
 * weights are all 0 are not computed (mapsRead): the score is the same without them.
 *
 * Returns a scorer for encodes of `original`: the original's side of every scale is computed here,
 * once, so that a search over qualities pays only for each encode's side. Images with alpha are scored
 * over a dark and a light grey (0.1 and 0.9), the worse of the two, as libjxl's ssimulacra2 tool does:
 * over one mid grey, errors in the alpha of mid-grey content would not show. The scorer reuses its
 * planes from one call to the next (it holds them as long as it is held).
 */
export function ssimulacra2Against(original: RawImage): (distorted: RawImage) => number {
  const { width, height } = original;
  // The reference scores anything smaller as identical (it computes no scale at all).
  if (width < 8 || height < 8) throw new RangeError("SSIMULACRA 2 needs at least 8×8 pixels");
  const reads = mapsRead(scaleCount(width, height));
  const work = sharedWorkspace(width, height, reads.length);
  const backgrounds = original.channels === 4 ? [0.1, 0.9] : [0.5];
  const prepared = backgrounds.map((background) => ({
    background,
    scales: prepare(original, background, reads, work),
  }));
  return (distorted) => {
    if (distorted.width !== width || distorted.height !== height) {
      throw new RangeError("SSIMULACRA 2 compares images of the same size");
    }
    const scores = prepared.map(({ background, scales }) => compare(scales, distorted, background, work));
    return Math.min(...scores);
  };
}

/** One comparison: `ssimulacra2Against(original)(distorted)`. */
export function ssimulacra2(original: RawImage, distorted: RawImage): number {
  return ssimulacra2Against(original)(distorted);
}

/**
 * How many scales the reference computes: it tests the size before halving, so the last scale may be
 * under 8 pixels (an 8×8 image is scored at 8×8 and 4×4).
 */
function scaleCount(width: number, height: number): number {
  let scales = 0;
  for (; scales < SCALES && width >= 8 && height >= 8; scales++) {
    if (scales > 0) [width, height] = [Math.ceil(width / 2), Math.ceil(height / 2)];
  }
  return scales;
}

/** How long the shared planes outlive their last use: a search's encodes between comparisons take less. */
const WORKSPACE_IDLE_MS = 10_000;

let shared: { width: number; height: number; work: ScaleWork[]; idle: NodeJS.Timeout } | null = null;

function sharedWorkspace(width: number, height: number, scales: number): ScaleWork[] {
  if (shared?.width === width && shared.height === height) {
    shared.idle.refresh();
    return shared.work;
  }
  if (shared) clearTimeout(shared.idle);
  const idle = setTimeout(() => (shared = null), WORKSPACE_IDLE_MS).unref();
  shared = { width, height, work: workspace(width, height, scales), idle };
  return shared.work;
}

function workspace(width: number, height: number, scales: number): ScaleWork[] {
  const plane = () => new Float32Array(width * height);
  const [scratch, mu2, s22, s12] = [plane(), plane(), plane(), plane()];
  const xyb = emptyPlanes(width, height);
  return Array.from({ length: scales }, (_, scale) => {
    const divisor = 2 ** scale;
    const [w, h] = [Math.ceil(width / divisor), Math.ceil(height / divisor)];
    const view = (plane: Float32Array) => plane.subarray(0, w * h);
    return {
      linear: emptyPlanes(w, h),
      // A scale's XYB planes are read only while that scale is compared: views of one set.
      xyb: { width: w, height: h, channels: [view(xyb.channels[0]), view(xyb.channels[1]), view(xyb.channels[2])] },
      scratch,
      mu2,
      s22,
      s12,
    };
  });
}

/** `image` in linear RGB at `scale`, in the workspace: scales are computed in order, each from the last. */
function linearAt(scale: number, image: RawImage, background: number, work: readonly ScaleWork[]): Planes {
  const into = work[scale]!.linear;
  return scale === 0
    ? linearPlanes(image.data, image.width, image.height, image.channels, background, into)
    : halved(work[scale - 1]!.linear, into);
}

function prepare(
  original: RawImage,
  background: number,
  reads: readonly MapsRead[][],
  work: readonly ScaleWork[],
): ScaleReference[] {
  return reads.map((scaleReads, scale) => {
    const xyb = positiveXyb(linearAt(scale, original, background, work));
    const { width, height } = xyb;
    const { scratch } = work[scale]!;
    const mean = xyb.channels.map((a, c) =>
      scaleReads[c]!.ssim || scaleReads[c]!.edges ? blur(a, width, height, scratch) : null,
    );
    const meanOfSquares = xyb.channels.map((a, c) =>
      scaleReads[c]!.ssim ? blurProduct(a, a, width, height, scratch) : null,
    );
    return { xyb, mean, meanOfSquares, reads: scaleReads };
  });
}

function compare(
  scales: readonly ScaleReference[],
  distorted: RawImage,
  background: number,
  work: readonly ScaleWork[],
): number {
  const norms = scales.map((reference, scale) => {
    const scaleWork = work[scale]!;
    positiveXyb(linearAt(scale, distorted, background, work), scaleWork.xyb);
    return scaleNorms(reference, scaleWork);
  });
  return scoreOf(norms);
}

function scaleNorms(reference: ScaleReference, work: ScaleWork): ScaleNorms {
  const { xyb: distorted, scratch, mu2, s22, s12 } = work;
  const { width, height } = distorted;
  const out: ScaleNorms = [];
  for (let c = 0; c < 3; c++) {
    const a = reference.xyb.channels[c]!;
    const b = distorted.channels[c]!;
    const mu1 = reference.mean[c];
    const s11 = reference.meanOfSquares[c];
    if (!mu1) {
      out.push(0, 0, 0, 0, 0, 0);
      continue;
    }
    blur(b, width, height, scratch, mu2);
    let [ssim1, ssim4] = [0, 0];
    if (s11) {
      blurProduct(b, b, width, height, scratch, s22);
      blurProduct(a, b, width, height, scratch, s12);
      [ssim1, ssim4] = ssimNorms(mu1, mu2, s11, s22, s12);
    }
    const edges = reference.reads[c]!.edges ? edgeNorms(a, b, mu1, mu2) : [0, 0, 0, 0];
    out.push(ssim1, ssim4, ...edges);
  }
  return out;
}

import { DEFAULT_QUALITY, PLACEHOLDER_QUALITY } from "./encode-options";
import type { ImageOperations, OutputFormat } from "./types";

/** Fractions of the first quality tried after it, while the output is over maxbytes_: at most 4 encodes. */
const STEPS = [0.75, 0.5, 0.3] as const;
/** Below this a lossy image is mush; the last step stops here. */
const MIN_QUALITY = 10;
/** An encode needs at least this much of the transform budget left to be worth starting. */
const MIN_ATTEMPT_MS = 1000;

export interface Encoded {
  data: Buffer;
  info: { width: number; height: number; pageHeight?: number };
}

/** Encodes the job at one quality (on the scale q_ uses), within a time budget. */
export type EncodeAt = (quality: number, budgetMs: number) => Promise<Encoded>;

/** PNG and GIF are lossless here: quality cannot make them smaller, so maxbytes_ leaves them alone. */
export function honoursMaxBytes(format: OutputFormat): boolean {
  return format === "jpeg" || format === "webp" || format === "avif";
}

/**
 * Encodes at the asked quality, then at lower ones while the output is over `maxBytes`, within the
 * one transform budget. Returns the first encode that fits, else the smallest made: an image a little
 * over a byte target is more use to a page than an error.
 */
export async function encodeWithinBytes(
  encodeAt: EncodeAt,
  maxBytes: number,
  first: number,
  budgetMs: number,
): Promise<Encoded> {
  const deadline = performance.now() + budgetMs;
  let best = await encodeAt(first, budgetMs);
  for (const step of STEPS) {
    if (best.data.length <= maxBytes) break;
    const quality = Math.max(MIN_QUALITY, Math.round(first * step));
    const left = deadline - performance.now();
    if (left < MIN_ATTEMPT_MS) break;
    const next = await encodeAt(quality, left);
    if (next.data.length < best.data.length) best = next;
    if (quality === MIN_QUALITY) break;
  }
  return best;
}

/** The quality an encode starts from, on q_'s scale (f_auto's AVIF reads it as WebP's, see encode-options). */
export function startingQuality(ops: ImageOperations, format: OutputFormat): number {
  if (ops.quality !== undefined) return ops.quality;
  if (ops.placeholder) return PLACEHOLDER_QUALITY;
  return format === "avif" && ops.format !== "auto" ? DEFAULT_QUALITY.avif : DEFAULT_QUALITY.webp;
}

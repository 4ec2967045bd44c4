import sharp, { type Sharp } from "sharp";
import { AppError } from "@/server/errors";
import { withMetadata, type OutputMetadata } from "../attribution";
import { applyEncoder } from "../encode-options";
import type { Encoded } from "../fit-bytes";
import { timeoutSeconds } from "../render-image";
import type { ImageOperations, TransformLimits } from "../types";
import type { SearchedFormat } from "./auto-quality";
import { ssimulacra2Against, type RawImage } from "./ssimulacra2";

/**
 * Outputs larger than this are scored on a copy shrunk to fit it (the original and every candidate
 * alike): the metric holds about 95 bytes a pixel (130 with alpha) and costs about 0.13 µs a pixel per
 * candidate in JavaScript (bench:metric), which at 24 MP would pass both the transform's memory cap and
 * its time.
 */
export const MAX_SCORED_PIXELS = 1_000_000;
/** The metric's smallest image: smaller outputs keep the format's default quality. */
export const MIN_SCORED_SIDE = 8;

/** The metadata each candidate carries (attribution.ts), and for meta_keep the pipeline it rides on. */
export interface ScoredOutput extends OutputMetadata {
  /** The same pixels from the source, not yet encoded: each candidate is encoded from it (meta_keep). */
  keepFrom?: () => Sharp;
}

/** Finished pixels, rendered once, that candidate encodes are made from and scored against. */
export interface RenderedPixels {
  width: number;
  height: number;
  /** No pixel is even partly transparent. */
  opaque: boolean;
  /** Too small to score: the caller encodes at the format's default. */
  unscored: boolean;
  /** A lossy encode at `quality` (undefined: the format's default), within a budget. */
  encodeLossy(
    format: SearchedFormat,
    ops: ImageOperations,
    quality: number | undefined,
    budgetMs: number,
  ): Promise<Encoded>;
  /** A lossless encode: the same pixels exactly. */
  encodeLossless(format: "webp" | "png", budgetMs: number): Promise<Encoded>;
  /** SSIMULACRA 2 of an encode against these pixels. */
  scoreOf(encoded: Encoded): Promise<number>;
  /** At most `limit` distinct colours: flat graphics, which a lossless encode may make smallest. */
  coloursAtMost(limit: number): boolean;
}

/**
 * Renders `pixels` (decode, geometry, effects) to raw 8-bit sRGB once. Grey (after grayscale, or a grey
 * source) is expanded to sRGB, the metric's and the encoders' input.
 */
export async function renderForScoring(
  pixels: Sharp,
  limits: TransformLimits,
  output: ScoredOutput = {},
): Promise<RenderedPixels> {
  let rendered = await pixels
    .timeout({ seconds: timeoutSeconds(limits.timeoutMs) })
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (rendered.info.channels < 3) {
    const { width, height, channels } = rendered.info;
    rendered = await sharp(rendered.data, { raw: { width, height, channels } })
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
  }
  const { width, height } = rendered.info;
  const data = rendered.data;
  const channels = rendered.info.channels === 4 ? 4 : 3;
  const raw: { width: number; height: number; channels: 3 | 4 } = { width, height, channels };
  const from = (budgetMs: number) => sharp(data, { raw }).timeout({ seconds: timeoutSeconds(budgetMs) });
  // Candidates carry the output's metadata too: the chosen one is served as it was encoded. With
  // meta_keep they are encoded from the pipeline that decodes the source: raw pixels carry none.
  const credited = (budgetMs: number) =>
    withMetadata(
      output.keepFrom ? output.keepFrom().timeout({ seconds: timeoutSeconds(budgetMs) }) : from(budgetMs),
      output,
    );
  const unscored = width < MIN_SCORED_SIDE || height < MIN_SCORED_SIDE;
  const scored = scoredSize(width, height);
  const shrinks = scored.width !== width || scored.height !== height;
  const asMetricReads = (image: Sharp) =>
    asScored(shrinks ? image.resize({ ...scored, fit: "fill" }) : image, scored, channels);
  let scorer: Promise<(candidate: RawImage) => number> | undefined;
  return {
    width,
    height,
    opaque: channels === 3 || alphaIsOpaque(data),
    unscored,
    encodeLossy: (format, ops, quality, budgetMs) =>
      // The concrete format: under f_auto a q_ is read on WebP's scale, a searched quality is the format's own.
      applyEncoder(credited(budgetMs), format, { ...ops, format, quality }, limits.webpEffort).toBuffer({
        resolveWithObject: true,
      }),
    encodeLossless: (format, budgetMs) =>
      (format === "webp"
        ? credited(budgetMs).webp({ lossless: true, effort: limits.webpEffort })
        : credited(budgetMs).png()
      ).toBuffer({
        resolveWithObject: true,
      }),
    scoreOf: async (encoded) => {
      // One scorer however many candidates are scored at once: each holds about 95 bytes a pixel.
      scorer ??= asMetricReads(from(limits.timeoutMs)).then((original) => ourBug(() => ssimulacra2Against(original)));
      const score = await scorer;
      const candidate = await asMetricReads(sharp(encoded.data));
      return ourBug(() => score(candidate));
    },
    coloursAtMost: (limit) => countColours(data, channels, limit) <= limit,
  };
}

/**
 * The metric throwing is this code's fault, never the source's: an INTERNAL error, not the decode
 * failure sharp's errors become (which would mark the source as failing for every variant).
 */
function ourBug<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new AppError("INTERNAL", { detail: "q_auto: the metric failed", cause: error });
  }
}

function scoredSize(width: number, height: number): { width: number; height: number } {
  const shrink = Math.sqrt(Math.min(1, MAX_SCORED_PIXELS / (width * height)));
  return {
    width: Math.max(MIN_SCORED_SIDE, Math.floor(width * shrink)),
    height: Math.max(MIN_SCORED_SIDE, Math.floor(height * shrink)),
  };
}

/** An image as the metric reads it: 8-bit sRGB with `channels` channels; `size` is checked, not made. */
async function asScored(image: Sharp, size: { width: number; height: number }, channels: 3 | 4): Promise<RawImage> {
  const srgb = image.toColourspace("srgb");
  const { data, info } = await (channels === 4 ? srgb.ensureAlpha() : srgb.removeAlpha())
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== channels || info.width !== size.width || info.height !== size.height) {
    throw new AppError("INTERNAL", {
      detail: `q_auto: an image to score came out ${info.width}×${info.height}×${info.channels}`,
    });
  }
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels };
}

function alphaIsOpaque(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

/** Distinct colours (with alpha), counted up to `limit + 1`: a photograph stops the count within rows. */
function countColours(data: Buffer, channels: 3 | 4, limit: number): number {
  const seen = new Set<number>();
  for (let i = 0; i < data.length; i += channels) {
    const rgb = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
    // Alpha folded in as a fractional part keeps one number per colour without overflowing 32 bits.
    seen.add(channels === 4 ? rgb + data[i + 3]! / 256 : rgb);
    if (seen.size > limit) break;
  }
  return seen.size;
}

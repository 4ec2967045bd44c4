import sharp, { type Sharp } from "sharp";
import { AppError } from "@/server/errors";
import { applyEncoder } from "../encode-options";
import type { Encoded } from "../fit-bytes";
import { timeoutSeconds } from "../render-image";
import type { ImageOperations, MeasuredQuality, TransformLimits } from "../types";
import { searchQuality, type QualityLevel, type SearchedFormat } from "./auto-quality";
import { ssimulacra2Against, type RawImage } from "./ssimulacra2";

/**
 * Outputs larger than this are scored on a copy shrunk to fit it (the original and every candidate
 * alike): the metric holds about 100 bytes a pixel and costs about 0.3 µs a pixel per candidate in
 * JavaScript (bench:metric), which at 24 MP would pass both the transform's memory cap and its time.
 */
export const MAX_SCORED_PIXELS = 1_000_000;
/** The metric's smallest image: smaller outputs keep the format's default quality. */
export const MIN_SCORED_SIDE = 8;

export interface TargetJob {
  /** The finished pixels, before any encoder: what every candidate is made from and scored against. */
  pixels: Sharp;
  format: SearchedFormat;
  level: QualityLevel;
  ops: ImageOperations;
}

/**
 * q_auto for one still output: the pixels are rendered once (decode, geometry, effects), then each
 * candidate quality is encoded from them, decoded again and scored against them. The chosen encode is
 * the answer; its quality and score go with the result. The search spends what is left of the
 * transform's time budget once the pixels are rendered.
 */
export async function encodeToTarget(
  job: TargetJob,
  limits: TransformLimits,
): Promise<{ encoded: Encoded; measured?: MeasuredQuality }> {
  const deadline = performance.now() + limits.timeoutMs;
  let rendered = await job.pixels
    .timeout({ seconds: timeoutSeconds(limits.timeoutMs) })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Grey (after grayscale, or a grey source): expanded to sRGB, the metric's and the encoders' input.
  if (rendered.info.channels < 3) {
    const { width, height, channels } = rendered.info;
    rendered = await sharp(rendered.data, { raw: { width, height, channels } })
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
  }
  const { width, height } = rendered.info;
  const channels = rendered.info.channels === 4 ? 4 : 3;
  const raw: { width: number; height: number; channels: 3 | 4 } = { width, height, channels };
  // The concrete format: under f_auto a q_ is read on WebP's scale, a searched quality is the format's own.
  const ops = { ...job.ops, format: job.format };
  const encodeAt = (quality: number | undefined, budgetMs: number) =>
    applyEncoder(
      sharp(rendered.data, { raw }).timeout({ seconds: timeoutSeconds(budgetMs) }),
      job.format,
      { ...ops, quality },
      limits.webpEffort,
    ).toBuffer({ resolveWithObject: true });
  // Too small for the metric: the format's default, unmeasured.
  if (width < MIN_SCORED_SIDE || height < MIN_SCORED_SIDE)
    return { encoded: await encodeAt(undefined, limits.timeoutMs) };
  const scored = scoredSize(width, height);
  const shrinks = scored.width !== width || scored.height !== height;
  const asMetricReads = (image: Sharp) =>
    asScored(shrinks ? image.resize({ ...scored, fit: "fill" }) : image, scored, channels);
  const original = await asMetricReads(sharp(rendered.data, { raw }));
  const score = ourBug(() => ssimulacra2Against(original));
  const searched = await searchQuality({
    format: job.format,
    level: job.level,
    budgetMs: deadline - performance.now(),
    encodeAt,
    scoreOf: async (encoded) => {
      const candidate = await asMetricReads(sharp(encoded.data));
      return ourBug(() => score(candidate));
    },
  });
  return { encoded: searched.encoded, measured: { quality: searched.quality, score: searched.score } };
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

import type { Sharp } from "sharp";
import type { Encoded } from "../fit-bytes";
import type { ImageOperations, MeasuredQuality, TransformLimits } from "../types";
import { searchQuality, type QualityLevel, type SearchedFormat } from "./auto-quality";
import { searchAnswer } from "./out-of-reach";
import { renderForScoring, type ScoredOutput } from "./rendered-pixels";

export interface TargetJob {
  /** The finished pixels, before any encoder: what every candidate is made from and scored against. */
  pixels: Sharp;
  format: SearchedFormat;
  level: QualityLevel;
  /** A score other than the level's (bench:quality); URLs name levels only. */
  target?: number;
  ops: ImageOperations;
  /** The metadata written into every encode (rendered-pixels.ts). */
  output?: ScoredOutput;
}

/**
 * q_auto for one still output: the pixels are rendered once (decode, geometry, effects), then each
 * candidate quality is encoded from them, decoded again and scored against them. The chosen encode is
 * the answer; its quality and score go with the result, and `unreached` when the level is out of the
 * format's reach on this image (the answer is then the knee: out-of-reach.ts). The search spends what
 * is left of the transform's time budget once the pixels are rendered.
 */
export async function encodeToTarget(
  job: TargetJob,
  limits: TransformLimits,
): Promise<{ encoded: Encoded; measured?: MeasuredQuality; encodes: number }> {
  const deadline = performance.now() + limits.timeoutMs;
  const rendered = await renderForScoring(job.pixels, limits, job.output);
  // Too small for the metric: the format's default, unmeasured.
  if (rendered.unscored)
    return { encoded: await rendered.encodeLossy(job.format, job.ops, undefined, limits.timeoutMs), encodes: 1 };
  const encodeAt = (quality: number, budgetMs: number) => rendered.encodeLossy(job.format, job.ops, quality, budgetMs);
  const scoreOf = (encoded: Encoded) => rendered.scoreOf(encoded);
  const searched = await searchQuality({
    format: job.format,
    level: job.level,
    target: job.target,
    budgetMs: deadline - performance.now(),
    encodeAt,
    scoreOf,
  });
  const answer = await searchAnswer(searched, {
    format: job.format,
    encodeAt,
    scoreOf,
    budgetMs: deadline - performance.now(),
  });
  return { encoded: answer.encoded, measured: answer.measured, encodes: searched.encodes + answer.made };
}

import sharp, { type Sharp } from "sharp";
import { applyEncoder } from "../encode-options";
import type { Encoded } from "../fit-bytes";
import { timeoutSeconds } from "../render-image";
import type { ImageOperations, MeasuredQuality, TransformLimits } from "../types";
import { searchQuality, type QualityLevel, type SearchedFormat } from "./auto-quality";
import { ssimulacra2Against, type RawImage } from "./ssimulacra2";

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
 * the answer; its quality and score go with the result.
 */
export async function encodeToTarget(
  job: TargetJob,
  limits: TransformLimits,
): Promise<{ encoded: Encoded; measured: MeasuredQuality }> {
  const timeout = { seconds: timeoutSeconds(limits.timeoutMs) };
  const rendered = await job.pixels.timeout(timeout).raw().toBuffer({ resolveWithObject: true });
  const { width, height } = rendered.info;
  const channels = rendered.info.channels === 4 ? 4 : 3;
  const original: RawImage = { data: new Uint8Array(rendered.data), width, height, channels };
  const score = ssimulacra2Against(original);
  // The concrete format: under f_auto a q_ is read on WebP's scale, a searched quality is the format's own.
  const ops = { ...job.ops, format: job.format };
  const searched = await searchQuality({
    format: job.format,
    level: job.level,
    budgetMs: limits.timeoutMs,
    encodeAt: (quality, budgetMs) =>
      applyEncoder(
        sharp(rendered.data, { raw: { width, height, channels } }).timeout({ seconds: timeoutSeconds(budgetMs) }),
        job.format,
        { ...ops, quality },
        limits.webpEffort,
      ).toBuffer({ resolveWithObject: true }),
    scoreOf: async (encoded) => {
      const decoded = sharp(encoded.data);
      const { data } = await (channels === 4 ? decoded.ensureAlpha() : decoded.removeAlpha()).raw().toBuffer({
        resolveWithObject: true,
      });
      return score({ data: new Uint8Array(data), width, height, channels });
    },
  });
  return { encoded: searched.encoded, measured: { quality: searched.quality, score: searched.score } };
}

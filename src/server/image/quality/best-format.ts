import type { Sharp } from "sharp";
import type { Encoded } from "../fit-bytes";
import type { AcceptClass } from "../negotiate";
import type { ImageOperations, MeasuredQuality, OutputFormat, TransformLimits } from "../types";
import { MAX_ENCODES, MIN_ATTEMPT_MS, searchQuality, type QualityLevel, type SearchedFormat } from "./auto-quality";
import { renderForScoring, type RenderedPixels, type ScoredOutput } from "./rendered-pixels";

/**
 * Images with at most this many colours are tried lossless as well: screenshots, icons and
 * illustrations, where lossless WebP or PNG is often smaller than any lossy encode that looks right. A
 * photograph passes this count within its first rows, so counting costs nothing there.
 */
export const FLAT_COLOURS = 4096;
/** A lossless encode is the pixels exactly: what the metric gives identical images. */
const LOSSLESS: MeasuredQuality = { quality: 100, score: 100 };

export interface BestJob {
  pixels: Sharp;
  /** What f_auto would answer with for this request: searched first, with f_auto's own allowance. */
  primary: OutputFormat;
  accepts: AcceptClass;
  level: QualityLevel;
  /** A score other than the level's (bench:quality); URLs name levels only. */
  target?: number;
  ops: ImageOperations;
  /** The metadata written into every encode (rendered-pixels.ts). */
  output?: ScoredOutput;
}

export interface Best {
  encoded: Encoded;
  format: OutputFormat;
  measured?: MeasuredQuality;
  /** Encodes made in all, over every format tried. */
  encodes: number;
}

type Candidate = { encoded: Encoded; format: OutputFormat; measured: MeasuredQuality; reached: boolean };

/**
 * f_best: the smallest output, among the formats the Accept class allows, that reaches the level's
 * score. Flat graphics get one lossless encode first (exact, so not scored). Then the format f_auto
 * would answer with is searched as q_auto searches it, with q_auto's MAX_ENCODES allowance, so the
 * answer is never larger than f_auto,q_auto's; the scored encodes it leaves go to the other lossy
 * format (WebP beside AVIF), kept only if it reaches the target. A lossy search stops early once an
 * encode short of the target is already larger than the answer in hand.
 */
export async function encodeBest(job: BestJob, limits: TransformLimits): Promise<Best> {
  const deadline = performance.now() + limits.timeoutMs;
  const rendered = await renderForScoring(job.pixels, limits, job.output);
  const plan = candidatesFor(job.primary, job.accepts, rendered);
  if (rendered.unscored) {
    const format = plan.lossy[0] ?? plan.lossless!;
    const encoded = plan.lossy[0]
      ? await rendered.encodeLossy(plan.lossy[0], job.ops, undefined, limits.timeoutMs)
      : await rendered.encodeLossless(plan.lossless!, limits.timeoutMs);
    return { encoded, format, encodes: 1 };
  }
  const found: Candidate[] = [];
  let scored = 0;
  const left = () => deadline - performance.now();
  // Lossless first: one encode, not scored, and its size bounds every lossy search after it.
  if (plan.lossless) {
    const encoded = await rendered.encodeLossless(plan.lossless, left());
    found.push({ encoded, format: plan.lossless, measured: LOSSLESS, reached: true });
  }
  for (const [index, format] of plan.lossy.entries()) {
    // After the first search, another format is only worth starting with time for an encode left.
    if (scored >= MAX_ENCODES || (index > 0 && left() < MIN_ATTEMPT_MS)) break;
    const searched = await searchQuality({
      format,
      level: job.level,
      target: job.target,
      budgetMs: left(),
      maxEncodes: MAX_ENCODES - scored,
      // Only f_auto's format must be served whatever it scores; another one competes only if it
      // reaches the target, so its last encode need not go to the top of its range.
      lastAtTop: index === 0,
      ceilingBytes: smallest(found)?.encoded.data.length,
      encodeAt: (quality, budgetMs) => rendered.encodeLossy(format, job.ops, quality, budgetMs),
      scoreOf: (encoded) => rendered.scoreOf(encoded),
    });
    scored += searched.encodes;
    const { quality, score, reached } = searched;
    found.push({ encoded: searched.encoded, format, measured: { quality, score }, reached });
  }
  return { ...(smallest(found) ?? found[0]!), encodes: scored + (plan.lossless ? 1 : 0) };
}

interface CandidatePlan {
  /** Searched in this order; the first is f_auto's answer when it is lossy. */
  lossy: SearchedFormat[];
  lossless?: "webp" | "png";
}

/** The formats worth trying for this Accept class and these pixels. */
export function candidatesFor(
  primary: OutputFormat,
  accepts: AcceptClass,
  pixels: Pick<RenderedPixels, "opaque" | "coloursAtMost">,
): CandidatePlan {
  const flat = pixels.coloursAtMost(FLAT_COLOURS);
  if (accepts !== "other") {
    const lossy: SearchedFormat[] = primary === "avif" ? ["avif", "webp"] : ["webp"];
    return flat ? { lossy, lossless: "webp" } : { lossy };
  }
  // JPEG cannot carry transparency: PNG is the only answer for it without WebP or AVIF.
  if (!pixels.opaque) return { lossy: [], lossless: "png" };
  return flat || primary === "png" ? { lossy: ["jpeg"], lossless: "png" } : { lossy: ["jpeg"] };
}

/**
 * The smallest that reached the target. When none did (the time ran out, or an image no encode in
 * range makes look right), the caller serves f_auto's format's answer, as q_auto alone would.
 */
function smallest(found: Candidate[]): Candidate | undefined {
  const reached = found.filter((candidate) => candidate.reached);
  return reached.reduce<Candidate | undefined>(
    (best, next) => (best && best.encoded.data.length <= next.encoded.data.length ? best : next),
    undefined,
  );
}

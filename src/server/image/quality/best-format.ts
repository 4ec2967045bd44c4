import type { Sharp } from "sharp";
import type { Encoded } from "../fit-bytes";
import type { AcceptClass } from "../negotiate";
import type { ImageOperations, MeasuredQuality, OutputFormat, TransformLimits } from "../types";
import {
  MAX_ENCODES,
  MIN_ATTEMPT_MS,
  QUALITY_LEVELS,
  SEARCH,
  searchQuality,
  type QualityLevel,
  type Searched,
  type SearchedFormat,
} from "./auto-quality";
import { measuredOf, searchAnswer } from "./out-of-reach";
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

/**
 * f_best's scored encodes over all its lossy formats: the first gets what q_auto gets (MAX_ENCODES,
 * and EXTRA_ENCODES while its bracket is wide), the second what is left of this, at least two (one to
 * land, one to correct). At most MAX_ENCODES + EXTRA_ENCODES + 2 in all.
 */
export const BEST_ENCODES = 6;

type Candidate = { encoded: Encoded; format: OutputFormat; measured: MeasuredQuality };

/**
 * f_best: the smallest output, among the formats the Accept class allows, that reaches the level's
 * score. Flat graphics get one lossless encode first (exact, so not scored). Then the format f_auto
 * would answer with is searched as q_auto searches it, so the answer is never larger than
 * f_auto,q_auto's; the other lossy format (WebP beside AVIF) starts where the first one's start score
 * puts it on its own scale, with the encodes left of BEST_ENCODES. Every encode of every format that
 * reaches the level is a candidate, and the smallest is served. A search stops early once an encode
 * short of the level is already larger than the answer in hand. When no format reaches it, f_auto's
 * format answers as q_auto would: its knee when the level is out of its reach (unreached).
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
  const left = () => deadline - performance.now();
  // Lossless first: one encode, not scored, and its size bounds every lossy search after it.
  if (plan.lossless) {
    const encoded = await rendered.encodeLossless(plan.lossless, left());
    found.push({ encoded, format: plan.lossless, measured: LOSSLESS });
  }
  const searches: Array<{ format: SearchedFormat; searched: Searched }> = [];
  let scored = 0;
  for (const [index, format] of plan.lossy.entries()) {
    const allowance = index === 0 ? MAX_ENCODES : Math.max(2, BEST_ENCODES - scored);
    // After the first search, another format is only worth starting with time for an encode left.
    if (index > 0 && left() < MIN_ATTEMPT_MS) break;
    const searched = await searchQuality({
      format,
      level: job.level,
      target: job.target,
      budgetMs: left(),
      maxEncodes: allowance,
      // The second format competes only: what is left is all it gets.
      extraEncodes: index === 0 ? undefined : 0,
      firstQuality: index === 0 ? undefined : startFrom(searches[0]!, format, job.level),
      ceilingBytes: smallest(found)?.encoded.data.length,
      encodeAt: (quality, budgetMs) => rendered.encodeLossy(format, job.ops, quality, budgetMs),
      scoreOf: (encoded) => rendered.scoreOf(encoded),
    });
    scored += searched.encodes;
    searches.push({ format, searched });
    const target = job.target ?? QUALITY_LEVELS[job.level];
    for (const point of searched.tried)
      if (point.score >= target) found.push({ encoded: point.encoded, format, measured: measuredOf(point) });
  }
  const encodes = scored + (plan.lossless ? 1 : 0);
  const best = smallest(found);
  if (best || searches.length === 0) return { ...(best ?? found[0]!), encodes };
  // Nothing reached the level: f_auto's format answers, as q_auto alone would.
  const { format, searched } = searches[0]!;
  const answer = await searchAnswer(searched, {
    format,
    encodeAt: (quality, budgetMs) => rendered.encodeLossy(format, job.ops, quality, budgetMs),
    scoreOf: (encoded) => rendered.scoreOf(encoded),
    budgetMs: left(),
  });
  return { encoded: answer.encoded, format, measured: answer.measured, encodes: encodes + answer.made };
}

/** How far the second format's start moves from its table's, in its own quality steps. */
const MAX_START_SHIFT = 10;

/**
 * Where the second format's search starts: an image the first format needed a higher quality for than
 * its table's start is about as hard for the other, so the second start moves by as many score points
 * along its own usual slope (at most MAX_START_SHIFT steps, and never to the top of its scale, which is
 * tried only when a slope puts the target there).
 */
export function startFrom(
  first: { format: SearchedFormat; searched: Pick<Searched, "quality"> },
  format: SearchedFormat,
  level: QualityLevel,
): number {
  const [from, to] = [SEARCH[first.format], SEARCH[format]];
  const points = (first.searched.quality - from.start[level]) * from.slope;
  const shift = Math.max(-MAX_START_SHIFT, Math.min(MAX_START_SHIFT, points / to.slope));
  return Math.max(to.min, Math.min(to.max - 1, Math.round(to.start[level] + shift)));
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

/** The smallest of the candidates, all of which reached the target. */
function smallest(found: Candidate[]): Candidate | undefined {
  return found.reduce<Candidate | undefined>(
    (best, next) => (best && best.encoded.data.length <= next.encoded.data.length ? best : next),
    undefined,
  );
}

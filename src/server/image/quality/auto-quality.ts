import type { Encoded } from "../fit-bytes";
import { QUALITY_LEVELS, type QualityLevel } from "./levels";

export { QUALITY_LEVELS, type QualityLevel } from "./levels";

export type SearchedFormat = "jpeg" | "webp" | "avif";

export interface FormatSearch {
  min: number;
  max: number;
  slope: number;
  start: Record<QualityLevel, number>;
}

/**
 * Where each format's search starts for each level, the range it stays in, and how many SSIMULACRA 2
 * points one quality step usually buys there (the first guess's slope, before two encodes measure the
 * image's own). Chosen by `npm run bench:quality-curves -- --optimise` on bench:quality's 24
 * photographs at 800 px: the fewest encodes that keep as many images within a point of the target as
 * the table before (docs/benchmarks.md). AVIF's low starts above eco: with its steeper slope the first
 * step down lands closer than a start below the target climbs back. Every range is the encoder's
 * whole scale: its ends are tried only when the slope puts the target past them, an image that needs
 * AVIF q95 for `best` is answered at q95 rather than called out of reach (13 of 38 in
 * bench:quality-regret), and a flat graphic that looks right at AVIF q8 is not held at q15.
 */
export const SEARCH: Record<SearchedFormat, FormatSearch> = {
  jpeg: { min: 1, max: 100, slope: 0.4, start: { best: 95, good: 83, eco: 63, low: 41 } },
  webp: { min: 1, max: 100, slope: 0.6, start: { best: 95, good: 87, eco: 71, low: 43 } },
  avif: { min: 1, max: 100, slope: 0.8, start: { best: 90, good: 57, eco: 47, low: 49 } },
};

/** The encodes one output's search usually gets. */
export const MAX_ENCODES = 4;
/**
 * Encodes past the allowance, spent only while the answer in hand is more than REGRET_BOUND × the
 * bytes of the highest encode that fell short (the smallest encode that reaches the target lies
 * between them, and the answer may be that far above it), or while every encode so far fell short
 * below the top. WebP's curve bends hard above q80 (the demo photo: q80 scores 69.5 at 10 KB, q90 80.1
 * at 54 KB), where a fourth encode left eco at 4× its bytes.
 */
export const EXTRA_ENCODES = 2;
/** The answer's bytes over the smallest that reaches the level, which the search works to stay under. */
export const REGRET_BOUND = 1.1;
/**
 * A score this close above the target is the answer: one quality step lower would fall short. Where a
 * step buys less (the flat top of a curve, where `best` lives: a step is 0.2 points and 7 % of the
 * bytes), the answer must be within one step's worth.
 */
export const SCORE_TOLERANCE = 1;
/**
 * While nothing has reached the target, a step up aims this many points further above it than a step
 * inside a bracket does: measured slopes flatten as quality rises, so a guess aimed at the target from
 * below lands just short of it too often, and a search with only short encodes has nothing to serve.
 */
export const CLIMB_MARGIN = 1;
/** An encode needs at least this much of the transform budget left to be worth starting. */
export const MIN_ATTEMPT_MS = 1000;

export interface SearchRequest {
  format: SearchedFormat;
  level: QualityLevel;
  /** A score to reach other than the level's (bench:quality sets a peer's worst score); the start stays the level's. */
  target?: number;
  encodeAt(quality: number, budgetMs: number): Promise<Encoded>;
  /** The SSIMULACRA 2 score of an encode against the pixels it was made from. */
  scoreOf(encoded: Encoded): Promise<number>;
  budgetMs: number;
  /** At most this many encodes (default MAX_ENCODES): f_best gives each format its own. */
  maxEncodes?: number;
  /** Encodes past `maxEncodes` while the answer is still worth improving (default EXTRA_ENCODES). */
  extraEncodes?: number;
  /** The first quality tried instead of the table's start (f_best's second format, from the first's). */
  firstQuality?: number;
  /**
   * An encode that falls short of the target at this many bytes or more ends the search: every encode
   * that reaches it would be larger still (f_best, with a smaller answer already in hand).
   */
  ceilingBytes?: number;
  /** Another start, range and slope than the format's (bench:quality-curves tries candidate tables). */
  table?: FormatSearch;
}

/** One encode the search made, scored. */
export interface Tried {
  encoded: Encoded;
  quality: number;
  score: number;
}

export interface Searched extends Tried {
  /** Encodes made to find it (each also decoded and scored). */
  encodes: number;
  /** The score reached the level's target. */
  reached: boolean;
  /** The top of the range was made and fell short: no quality of this format reaches the level here. */
  outOfReach: boolean;
  /** Every encode made, in order: f_best weighs them across formats, the knee is chosen among them. */
  tried: Tried[];
  /** How long the last encode and its scoring took (what another encode is judged by). */
  lastAttemptMs: number;
}

type Point = { quality: number; score: number };

/**
 * The lowest quality whose encode reaches the level's score, in `maxEncodes` encodes (and up to
 * EXTRA_ENCODES more while the bracket spans more than REGRET_BOUND in bytes, or while nothing has
 * reached the target short of the top). It brackets before it
 * bisects: from the format's start for the level, a step along the score's slope
 * (the image's own once two encodes measure it), aimed CLIMB_MARGIN further above the target while
 * nothing has reached it; then guesses between the highest quality known to fall short and the lowest
 * known to reach it. It stops at a score within SCORE_TOLERANCE above the target, when the bracket
 * closes, or when the range's top falls short (out of reach: the caller answers the knee,
 * out-of-reach.ts). The top is tried only when the slope puts the target past it, never as a last
 * resort: a last encode there cost 13× the default's bytes on the demo photo for a score the step
 * below it nearly had. A search that ends with nothing reached serves its highest score; one short of
 * time serves the lowest encode that reached the target, else its highest score.
 */
export async function searchQuality(request: SearchRequest): Promise<Searched> {
  const table = request.table ?? SEARCH[request.format];
  const { min, max } = table;
  const target = request.target ?? QUALITY_LEVELS[request.level];
  const maxEncodes = request.maxEncodes ?? MAX_ENCODES;
  const deadline = performance.now() + request.budgetMs;
  const tried: Tried[] = [];
  let below: Tried | null = null;
  let above: Tried | null = null;
  let outOfReach = false;
  let quality = Math.min(max, Math.max(min, request.firstQuality ?? table.start[request.level]));
  let attemptMs = 0;
  // The bracket spans more than the regret bound in bytes; or nothing has reached the target yet, and
  // a search that stopped there would serve an encode short of it.
  const worthMore = () =>
    above === null
      ? below !== null && below.quality < max
      : below !== null && above.encoded.data.length > REGRET_BOUND * below.encoded.data.length;
  const extra = request.extraEncodes ?? EXTRA_ENCODES;
  while (tried.length < maxEncodes || (tried.length < maxEncodes + extra && worthMore())) {
    const left = deadline - performance.now();
    // Another encode and its scoring must fit in what is left, judged by the last one's time.
    if (tried.length > 0 && left < Math.max(MIN_ATTEMPT_MS, 1.5 * attemptMs)) break;
    const attemptStart = performance.now();
    const encoded = await request.encodeAt(quality, left);
    const point = { encoded, quality, score: await request.scoreOf(encoded) };
    attemptMs = performance.now() - attemptStart;
    tried.push(point);
    // Guesses stay inside the bracket, so each new point narrows it from its side.
    if (point.score >= target) above = point;
    else below = point;
    if (point.score < target && encoded.data.length >= (request.ceilingBytes ?? Infinity)) break;
    // Within a step's worth of the target is the answer, unless a cheaper encode may still reach it:
    // on the flat top of a curve a point spans many qualities (a graphic's AVIF: q93 89.97 at 22 KB,
    // q100 90.98 at 104 KB).
    if (above && above.score < target + stepWorth(table.slope, tried) && !worthMore()) break;
    if (point.score < target && quality >= max) {
      outOfReach = true;
      break;
    }
    const previous = tried.at(-2) ?? null;
    const next = nextGuess(table.slope, target, { below, above, last: point, previous, min, max });
    if (next === null) break;
    quality = next;
  }
  const chosen = above ?? highestScore(tried);
  return { ...chosen, encodes: tried.length, reached: above !== null, outOfReach, tried, lastAttemptMs: attemptMs };
}

/**
 * What one quality step buys around the last encode, up to SCORE_TOLERANCE: the last two encodes'
 * slope, else the format's usual one.
 */
function stepWorth(usualSlope: number, tried: readonly Point[]): number {
  const last = tried.at(-1)!;
  const previous = tried.at(-2);
  const measured = previous ? (last.score - previous.score) / (last.quality - previous.quality) : 0;
  return Math.min(SCORE_TOLERANCE, measured > 0.05 ? measured : usualSlope);
}

export function highestScore<T extends Point>(points: readonly T[]): T {
  return points.reduce((best, next) => (next.score > best.score ? next : best));
}

interface Bracket {
  below: Point | null;
  above: Point | null;
  last: Point;
  previous: Point | null;
  min: number;
  max: number;
}

/**
 * The next quality to try: between the bracket's two sides when both are known (aimed half a point
 * above the target, so rounding seldom falls short); else along the slope of the last two encodes (or
 * the format's usual slope), aimed CLIMB_MARGIN higher when climbing so that the step brackets the
 * target. Null when no untried quality is left inside the bracket.
 */
export function nextGuess(usualSlope: number, target: number, b: Bracket): number | null {
  const low = b.below ? b.below.quality + 1 : b.min;
  const high = b.above ? b.above.quality - 1 : b.max;
  if (low > high) return null;
  const aim = target + SCORE_TOLERANCE / 2;
  let guess: number;
  if (b.below && b.above) {
    const rise = b.above.score - b.below.score;
    const width = b.above.quality - b.below.quality;
    // Half a point above the target, or one quality step's worth where a step buys less: on a flat
    // curve half a point is several qualities, each paid for in bytes.
    const inBracket = target + Math.min(SCORE_TOLERANCE / 2, Math.max(0, rise / width));
    const share = rise > 0 ? (inBracket - b.below.score) / rise : 0.5;
    // Kept to the bracket's middle half: a curve that bends inside the bracket (WebP above q80) puts
    // the straight line's guess next to one end, and a guess there narrows the bracket by a step.
    const margin = Math.floor(width / 4);
    const secant = Math.round(b.below.quality + share * width);
    guess = Math.min(b.above.quality - margin, Math.max(b.below.quality + margin, secant));
  } else {
    const measured = b.previous ? (b.last.score - b.previous.score) / (b.last.quality - b.previous.quality) : 0;
    // A flat or falling measured slope says nothing about where the target is: use the usual one.
    const slope = measured > 0.05 ? measured : usualSlope;
    const climbing = b.last.score < target;
    // Down a flat top, half a point is several steps: aim one step's worth above the target there.
    const towards = climbing ? aim + CLIMB_MARGIN : target + Math.min(SCORE_TOLERANCE / 2, slope);
    const exact = b.last.quality + (towards - b.last.score) / slope;
    guess = climbing ? Math.ceil(exact) : Math.round(exact);
  }
  return Math.min(high, Math.max(low, guess));
}

export function isSearchedFormat(format: string): format is SearchedFormat {
  return format === "jpeg" || format === "webp" || format === "avif";
}

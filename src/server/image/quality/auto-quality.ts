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
 * step down lands closer than a start below the target climbs back.
 */
export const SEARCH: Record<SearchedFormat, FormatSearch> = {
  jpeg: { min: 20, max: 95, slope: 0.4, start: { best: 95, good: 83, eco: 63, low: 41 } },
  webp: { min: 20, max: 95, slope: 0.6, start: { best: 95, good: 87, eco: 71, low: 43 } },
  avif: { min: 15, max: 90, slope: 0.8, start: { best: 90, good: 57, eco: 47, low: 49 } },
};

/** Never more encodes than this for one output. */
export const MAX_ENCODES = 4;
/** A score this close above the target is the answer: one quality step lower would fall short. */
export const SCORE_TOLERANCE = 1;
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
  /** At most this many encodes (default MAX_ENCODES): f_best shares them between formats. */
  maxEncodes?: number;
  /** The last allowed encode goes to the range's top when none before it reached the target (default). */
  lastAtTop?: boolean;
  /**
   * An encode that falls short of the target at this many bytes or more ends the search: every encode
   * that reaches it would be larger still (f_best, with a smaller answer already in hand).
   */
  ceilingBytes?: number;
  /** Another start, range and slope than the format's (bench:quality-curves tries candidate tables). */
  table?: FormatSearch;
}

export interface Searched {
  encoded: Encoded;
  quality: number;
  score: number;
  /** Encodes made to find it (each also decoded and scored). */
  encodes: number;
  /** The score reached the level's target. */
  reached: boolean;
}

type Point = { quality: number; score: number };

/**
 * The lowest quality whose encode reaches the level's score, in at most `maxEncodes` encodes: the
 * format's start for the level, then a guess along the score's slope (measured once two encodes exist),
 * kept inside the bracket between the highest quality known to fall short and the lowest known to reach
 * it. It stops at a score within SCORE_TOLERANCE above the target or when the bracket closes. When
 * nothing has reached the target by the last encode, that one is made at the range's top and served
 * whatever its score: an image a little under its target is more use than an error. The time budget is
 * what the transform has left; a search that runs short serves the lowest encode that reached the
 * target, else its last, with the score it has.
 */
export async function searchQuality(request: SearchRequest): Promise<Searched> {
  const table = request.table ?? SEARCH[request.format];
  const { min, max, start } = table;
  const target = request.target ?? QUALITY_LEVELS[request.level];
  const maxEncodes = request.maxEncodes ?? MAX_ENCODES;
  const deadline = performance.now() + request.budgetMs;
  let below: Point | null = null;
  let reached: (Searched & Point) | null = null;
  let last: Searched | null = null;
  let previous: Point | null = null;
  let quality = start[request.level];
  let attemptMs = 0;
  for (let encodes = 1; encodes <= maxEncodes; encodes++) {
    if (encodes === maxEncodes && !reached && request.lastAtTop !== false) quality = max;
    const left = deadline - performance.now();
    // Another encode and its scoring must fit in what is left, judged by the last one's time.
    if (last && left < Math.max(MIN_ATTEMPT_MS, 1.5 * attemptMs)) break;
    const attemptStart = performance.now();
    const encoded = await request.encodeAt(quality, left);
    const score = await request.scoreOf(encoded);
    attemptMs = performance.now() - attemptStart;
    const point = { quality, score };
    last = { encoded, quality, score, encodes, reached: score >= target };
    if (score >= target) reached = last;
    else below = point;
    if (score < target && encoded.data.length >= (request.ceilingBytes ?? Infinity)) break;
    if (reached && reached.score < target + SCORE_TOLERANCE) break;
    const next = nextGuess(table.slope, target, { below, above: reached, last: point, previous, min, max });
    if (next === null) break;
    previous = point;
    quality = next;
  }
  const chosen = reached ?? last!;
  return { ...chosen, encodes: last!.encodes };
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
 * The quality expected to score just above the target: between the bracket's two sides when both are
 * known, else along the slope of the last two encodes (or the format's usual slope). Null when no
 * untried quality is left inside the bracket.
 */
export function nextGuess(usualSlope: number, target: number, b: Bracket): number | null {
  const low = b.below ? b.below.quality + 1 : b.min;
  const high = b.above ? b.above.quality - 1 : b.max;
  if (low > high) return null;
  const aim = target + SCORE_TOLERANCE / 2;
  let guess: number;
  if (b.below && b.above) {
    const rise = b.above.score - b.below.score;
    const share = rise > 0 ? (aim - b.below.score) / rise : 0.5;
    guess = b.below.quality + share * (b.above.quality - b.below.quality);
  } else {
    const measured = b.previous ? (b.last.score - b.previous.score) / (b.last.quality - b.previous.quality) : 0;
    // A flat or falling measured slope says nothing about where the target is: use the usual one.
    const slope = measured > 0.05 ? measured : usualSlope;
    guess = b.last.quality + (aim - b.last.score) / slope;
  }
  // Aimed half a point above the target, so rounding to the nearest quality seldom falls short.
  return Math.min(high, Math.max(low, Math.round(guess)));
}

export function isSearchedFormat(format: string): format is SearchedFormat {
  return format === "jpeg" || format === "webp" || format === "avif";
}

import type { Encoded } from "../fit-bytes";
import { QUALITY_LEVELS, type QualityLevel } from "./levels";

export { QUALITY_LEVELS, type QualityLevel } from "./levels";

export type SearchedFormat = "jpeg" | "webp" | "avif";

/**
 * Where each format's search starts for each level, and the range it stays in: a start close to the
 * usual answer leaves the bisection a narrow bracket. Provisional figures, to be replaced by what
 * bench:quality measures on its corpus.
 */
const SEARCH: Record<SearchedFormat, { min: number; max: number; start: Record<QualityLevel, number> }> = {
  jpeg: { min: 20, max: 95, start: { best: 90, good: 80, eco: 68, low: 55 } },
  webp: { min: 20, max: 95, start: { best: 88, good: 76, eco: 64, low: 50 } },
  avif: { min: 15, max: 90, start: { best: 74, good: 60, eco: 48, low: 38 } },
};

/** Never more encodes than this for one output. */
export const MAX_ENCODES = 4;
/** An encode needs at least this much of the transform budget left to be worth starting. */
const MIN_ATTEMPT_MS = 1000;

export interface SearchRequest {
  format: SearchedFormat;
  level: QualityLevel;
  encodeAt(quality: number, budgetMs: number): Promise<Encoded>;
  /** The SSIMULACRA 2 score of an encode against the pixels it was made from. */
  scoreOf(encoded: Encoded): Promise<number>;
  budgetMs: number;
}

export interface Searched {
  encoded: Encoded;
  quality: number;
  score: number;
  /** Encodes made to find it (each also decoded and scored). */
  encodes: number;
}

/**
 * The lowest quality whose encode reaches the level's score, in at most MAX_ENCODES encodes: the
 * format's start for the level, then bisection between the highest quality known to fall short and the
 * lowest known to reach it. When nothing has reached it by the last encode, that one is made at the
 * range's top and served whatever its score: an image a little under its target is more use than an
 * error. The time budget is what the transform has left; a search that runs short serves the lowest
 * encode that reached the target, else its last, with the score it has.
 */
export async function searchQuality(request: SearchRequest): Promise<Searched> {
  const { min, max, start } = SEARCH[request.format];
  const target = QUALITY_LEVELS[request.level];
  const deadline = performance.now() + request.budgetMs;
  let below = min - 1;
  let reached: Searched | null = null;
  let last: Searched | null = null;
  let quality = start[request.level];
  let attemptMs = 0;
  for (let encodes = 1; encodes <= MAX_ENCODES; encodes++) {
    if (encodes === MAX_ENCODES && !reached) quality = max;
    const left = deadline - performance.now();
    // Another encode and its scoring must fit in what is left, judged by the last one's time.
    if (last && left < Math.max(MIN_ATTEMPT_MS, 1.5 * attemptMs)) break;
    const attemptStart = performance.now();
    const encoded = await request.encodeAt(quality, left);
    const score = await request.scoreOf(encoded);
    attemptMs = performance.now() - attemptStart;
    last = { encoded, quality, score, encodes };
    if (score >= target) reached = last;
    else below = quality;
    const above = reached ? reached.quality : max + 1;
    const next = Math.floor((below + above) / 2);
    // The bracket is closed: the lowest that reached is the answer (or the top itself fell short).
    if (next <= below || next >= above) break;
    quality = next;
  }
  const chosen = reached ?? last!;
  return { ...chosen, encodes: last!.encodes };
}

export function isSearchedFormat(format: string): format is SearchedFormat {
  return format === "jpeg" || format === "webp" || format === "avif";
}

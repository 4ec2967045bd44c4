import { DEFAULT_QUALITY } from "../encode-options";
import type { Encoded } from "../fit-bytes";
import type { MeasuredQuality } from "../types";
import { MIN_ATTEMPT_MS, type Searched, type SearchedFormat, type Tried } from "./auto-quality";

/** An answer to a level out of reach costs at most this many times the format's default quality's bytes. */
export const OUT_OF_REACH_BYTES = 1.5;
/**
 * Past the default, a step up is worth its bytes while each SSIMULACRA 2 point it buys costs at most
 * this share more bytes (the demo photo's AVIF pays about 15 % a point around a score of 78, where the
 * level is still reached; past the knee of an image out of reach, points cost several times that).
 */
export const KNEE_COST_PER_POINT = 0.2;

export interface KneeRequest {
  format: SearchedFormat;
  /** The search's encodes, the top of the range among them. */
  tried: readonly Tried[];
  encodeAt(quality: number, budgetMs: number): Promise<Encoded>;
  scoreOf(encoded: Encoded): Promise<number>;
  budgetMs: number;
  /** How long the search's last encode and scoring took: the default's encode must fit what is left. */
  lastAttemptMs: number;
}

/**
 * A level no quality of the format reaches on this image: the knee of its curve, among the encodes the
 * search made and the format's default quality (made here when the search did not). From the default
 * up, each next encode is taken while the points it adds cost at most KNEE_COST_PER_POINT more bytes
 * each, and never past OUT_OF_REACH_BYTES × the default's bytes: q95 that still falls short was 3–4×
 * the bytes of q75 for a point or two, on images whose texture no encoder keeps. Without the time
 * for the default's encode (the search's last attempt, half as long again, must fit what is left of
 * the transform's budget), the walk starts from the lowest quality the search made instead.
 */
export async function kneeOf(request: KneeRequest): Promise<{ knee: Tried; encodes: number }> {
  const made = request.tried.find((point) => point.quality === DEFAULT_QUALITY[request.format]);
  const base = made ? { point: made, encodes: 0 } : await defaultOrLowest(request);
  let knee = base.point;
  const cap = OUT_OF_REACH_BYTES * knee.encoded.data.length;
  const above = request.tried
    .filter((point) => point.quality > knee.quality && point.encoded.data.length <= cap)
    .sort((a, b) => a.quality - b.quality);
  for (const next of above) {
    const gain = next.score - knee.score;
    const cost = next.encoded.data.length / knee.encoded.data.length - 1;
    if (gain <= 0 || cost > gain * KNEE_COST_PER_POINT) break;
    knee = next;
  }
  return { knee, encodes: base.encodes };
}

async function defaultOrLowest(request: KneeRequest): Promise<{ point: Tried; encodes: number }> {
  const lowest = request.tried.reduce((low, next) => (next.quality < low.quality ? next : low));
  if (request.budgetMs < Math.max(MIN_ATTEMPT_MS, 1.5 * request.lastAttemptMs)) return { point: lowest, encodes: 0 };
  const quality = DEFAULT_QUALITY[request.format];
  const encoded = await request.encodeAt(quality, request.budgetMs);
  return { point: { encoded, quality, score: await request.scoreOf(encoded) }, encodes: 1 };
}

/**
 * What a search answers: its own choice, or, when the level is out of the format's reach, the knee
 * (said `unreached`); `made` counts the encodes the knee added.
 */
export async function searchAnswer(
  searched: Searched,
  request: Omit<KneeRequest, "tried" | "lastAttemptMs">,
): Promise<{ encoded: Encoded; measured: MeasuredQuality; made: number }> {
  if (!searched.outOfReach) return { encoded: searched.encoded, measured: measuredOf(searched), made: 0 };
  const { knee, encodes } = await kneeOf({ ...request, tried: searched.tried, lastAttemptMs: searched.lastAttemptMs });
  return { encoded: knee.encoded, measured: measuredOf(knee, true), made: encodes };
}

export function measuredOf(point: Pick<Tried, "quality" | "score">, unreached = false): MeasuredQuality {
  return { quality: point.quality, score: point.score, ...(unreached ? { unreached: true } : {}) };
}

import type { ImageOperations } from "@/server/image";
import { answersAvifLater, INTERIM_ACCEPT } from "./avif-later";
import type { LaterPolicy } from "./delivery-types";

/** The interim answer's shared lifetime, in seconds (contract §4: 60 or shorter, never immutable). */
export const INTERIM_MAX_AGE = 60;

/**
 * What a cold request answers at once while its final answer is made later: the WebP variant instead
 * of a slow AVIF (avif-later.ts), the format's fixed quality instead of the measured one (q_auto; f_best
 * answers as f_auto), or both. Each changes the variant, so the interim has its own key and ETag.
 */
export interface InterimPlan {
  operations: ImageOperations;
  accept: string | null;
  /** The final answer may be AVIF where this one is WebP. */
  avif: boolean;
  /** The final answer is searched where this one is at the format's default quality. */
  quality: boolean;
}

/**
 * `fixed`: what the same URL makes without the search (answer-operations.ts), so that the interim
 * answer is the fixed-quality URL's own variant, Save-Data included.
 */
export function interimPlan(
  ops: ImageOperations,
  accept: string | null,
  policy: LaterPolicy,
  fixed: ImageOperations,
): InterimPlan | null {
  const avif = answersAvifLater(ops, accept, policy.avif);
  // Nothing left but the search: an SVG source would pass through instead of being rasterised.
  const quality = policy.quality && searchesQuality(ops) && Object.keys(fixed).length > 0;
  if (!avif && !quality) return null;
  return { operations: quality ? fixed : ops, accept: avif ? INTERIM_ACCEPT : accept, avif, quality };
}

/** q_auto or f_best on an image answer (info and placeholders choose no quality). */
function searchesQuality(ops: ImageOperations): boolean {
  if (ops.info || ops.placeholder) return false;
  return ops.qualityTarget !== undefined || ops.format === "best";
}

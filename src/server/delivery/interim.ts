import sharp from "sharp";
import { isSearchedFormat, type ImageOperations, type TransformResult } from "@/server/image";
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
 * `fixed`: what the same URL makes without the search (`withoutSearch` of the operations as asked, with
 * the client hints and the watermark applied as to the final ones), so that the interim answer is the
 * fixed-quality URL's own variant, Save-Data included.
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

/**
 * The same operations at the format's default quality: f_best starts from f_auto's answer
 * (negotiate.ts). Keys left undefined are dropped, as the variant key drops them, so that an operation
 * the variant key does not see cannot change the format negotiated (an SVG passes through only without
 * operations).
 */
export function withoutSearch({ qualityTarget: _, ...ops }: ImageOperations): ImageOperations {
  const defined = Object.fromEntries(Object.entries(ops).filter(([, value]) => value !== undefined)) as ImageOperations;
  return defined.format === "best" ? { ...defined, format: "auto" } : defined;
}

/**
 * Whether the final answer would be this interim one itself, so that making it later would only make
 * the same bytes again. AVIF: an animation (AVIF output here takes one frame, so f_auto and f_best give
 * an animation WebP), or f_auto's output over AVIF's area (WebP whatever the Accept). Quality: an
 * animation (never searched), or q_auto's output in a format the search does not take (PNG, GIF).
 */
export async function interimIsFinal(
  result: TransformResult,
  { plan, ops, maxAvifPixels }: { plan: InterimPlan; ops: ImageOperations; maxAvifPixels: number },
): Promise<boolean> {
  // The header only (a WebP's or GIF's frame count is in its first chunks), read once if both ask.
  let frames: Promise<number> | undefined;
  const animated = async () =>
    (await (frames ??= sharp(result.body)
      .metadata()
      .then((m) => m.pages ?? 1))) > 1;
  if (plan.avif) {
    if (result.format !== "webp") return false;
    const overArea = ops.format === "auto" && result.width * result.height > maxAvifPixels;
    if (!overArea && !(await animated())) return false;
  }
  if (plan.quality) {
    const searched = ops.format === "best" || isSearchedFormat(result.format);
    if (searched && !(await animated())) return false;
  }
  return true;
}

/** Short-lived and revalidated: no CDN or browser keeps the interim answer as the final one. */
export function asInterim(headers: Headers, lifetimeSeconds: number): Headers {
  const seconds = Math.min(INTERIM_MAX_AGE, lifetimeSeconds);
  headers.set("Cache-Control", `public, max-age=${seconds}, s-maxage=${seconds}`);
  headers.set("CDN-Cache-Control", `public, max-age=${seconds}`);
  return headers;
}

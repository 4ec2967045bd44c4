import { acceptClass, negotiatesFormat, type ImageOperations } from "@/server/image";
import type { LaterPolicy } from "./delivery-types";

/** The Accept class the interim answer is made for: every browser that takes AVIF takes WebP. */
export const INTERIM_ACCEPT = "image/webp";

/**
 * Whether a cold request would wait for a slow AVIF: f_auto or f_best, AVIF in Accept, and an output of
 * at least `minPixels` that is not known to be over `maxPixels`. Predicted before the source is read,
 * from the requested size: `w_` and `h_` (a missing one taken as equal to the other) times dpr²; with
 * neither, the source's own size, unknown yet, so assumed large (and made later if it is AVIF after all).
 */
export function answersAvifLater(ops: ImageOperations, accept: string | null, policy: LaterPolicy["avif"]): boolean {
  if (policy.minPixels <= 0 || !negotiatesFormat(ops) || acceptClass(accept) !== "avif") return false;
  if (ops.info || ops.placeholder) return false;
  const pixels = requestedPixels(ops);
  return pixels >= policy.minPixels && (pixels === Infinity || pixels <= policy.maxPixels);
}

export function requestedPixels(ops: Pick<ImageOperations, "width" | "height" | "dpr">): number {
  const width = ops.width ?? ops.height;
  const height = ops.height ?? ops.width;
  if (width === undefined || height === undefined) return Infinity;
  const dpr = ops.dpr ?? 1;
  return width * height * dpr * dpr;
}

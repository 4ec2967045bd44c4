import type { PlatformValues } from "@/server/config/platform-settings";
import { choice, group, integer, optionalInteger, type ValuesOf } from "@/server/config/setting";

/** Under Vercel's 4.5 MB cap on a function's response, with room for the headers. */
export const VERCEL_RESPONSE_MAX_BYTES = 4_400_000;

export const deliverySettings = group("Answers", {
  OPTSTUFF_RESULT_CACHE_BYTES: integer({
    default: 64 * 1024 * 1024,
    min: 0,
    doc: "Recent results kept in memory, in bytes; 0 keeps none.",
  }),
  OPTSTUFF_AVIF_LATER_MIN_PIXELS: integer({
    default: 250_000,
    min: 0,
    doc: "AVIF without the wait: a cold `f_auto` or `f_best` request for AVIF whose output is predicted to have at least this many pixels (from `w_`, `h_` and `dpr_`; unknown counts as large) is answered at once with the WebP, under a 60-second lifetime, while the AVIF is made at background priority and served from then on; 0 always waits for the AVIF.",
  }),
  OPTSTUFF_QUALITY_LATER: choice(["on", "off"], {
    default: "on",
    doc: "`q_auto` and `f_best` without the wait: a cold request is answered at once with the format's default quality (`f_best` as `f_auto`), under a 60-second lifetime, while the quality search runs at background priority and its answer is served from then on; `off` waits for the search.",
  }),
  OPTSTUFF_RESPONSE_MAX_BYTES: optionalInteger({
    min: 0,
    defaultText: `${VERCEL_RESPONSE_MAX_BYTES} on Vercel (its functions answer at most 4.5 MB), no cap elsewhere`,
    doc: "The largest image body answered directly: a larger one is a 307 to a signed URL of its object in the S3 result bucket, or 413 `OUTPUT_TOO_LARGE` without one; 0 is no cap.",
  }),
});

export type DeliveryValues = ValuesOf<typeof deliverySettings>;

/** The largest body answered directly (delivery/oversize.ts); 0 is no cap. */
export const responseMaxBytesOf = (v: DeliveryValues & Pick<PlatformValues, "VERCEL">): number =>
  v.OPTSTUFF_RESPONSE_MAX_BYTES ?? (v.VERCEL !== undefined ? VERCEL_RESPONSE_MAX_BYTES : 0);

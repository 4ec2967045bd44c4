import { group, integer, optionalInteger } from "@/server/config/setting";

/** Under Vercel's 4.5 MB cap on a function's response, with room for the headers. */
export const VERCEL_RESPONSE_MAX_BYTES = 4_400_000;

export const deliverySettings = group("Answers", {
  OPTSTUFF_RESULT_CACHE_BYTES: integer({
    default: 64 * 1024 * 1024,
    min: 0,
    doc: "Recent results kept in memory, in bytes; 0 keeps none.",
  }),
  OPTSTUFF_RESPONSE_MAX_BYTES: optionalInteger({
    min: 0,
    defaultText: `${VERCEL_RESPONSE_MAX_BYTES} on Vercel (its functions answer at most 4.5 MB), no cap elsewhere`,
    doc: "The largest image body answered directly: a larger one is a 307 to a signed URL of its object in the S3 result bucket, or 413 `OUTPUT_TOO_LARGE` without one; 0 is no cap.",
  }),
});

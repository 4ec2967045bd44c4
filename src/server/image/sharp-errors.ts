import { AppError, isAppError } from "@/server/errors";

/**
 * sharp reports everything as a plain Error with libvips' message; this is the one place that reads
 * those messages. Order matters: the specific causes first, then "the bytes would not decode".
 */
const RULES: ReadonlyArray<{ pattern: RegExp; code: "IMAGE_TOO_LARGE" | "UNSUPPORTED_IMAGE" | "TRANSFORM_TIMEOUT" }> = [
  { pattern: /exceeds pixel limit|exceeds channel limit|too large for the .* format/i, code: "IMAGE_TOO_LARGE" },
  { pattern: /unsupported image format|is not a known file format/i, code: "UNSUPPORTED_IMAGE" },
  // sharp.timeout(): libvips kills the image and reports "timeout: N% complete".
  { pattern: /^timeout: |killed for image/i, code: "TRANSFORM_TIMEOUT" },
];

/**
 * sharp's argument validation ("Expected integer between … for width but received …") fires before
 * any pixel is read: it means this code built a bad call, which is a bug (500), not bad input.
 */
const ARGUMENT_ERROR = /^Expected .* but received /;

/** The error to throw for something sharp threw: an AppError, or the original error when it is our bug. */
export function toImageError(error: unknown, stage: "inspect" | "transform"): unknown {
  if (isAppError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (ARGUMENT_ERROR.test(message)) return error;
  const rule = RULES.find(({ pattern }) => pattern.test(message));
  if (rule) return new AppError(rule.code, { detail: `${stage}: ${message}`, cause: error });
  // Anything else libvips says about the input (truncated data, bad headers, corrupt chunks) means the
  // bytes claim a format they do not honour.
  return new AppError("IMAGE_DECODE_FAILED", { detail: `${stage}: ${message}`, cause: error });
}

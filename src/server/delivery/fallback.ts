import type { ProjectConfig } from "@/server/config-cache/types";
import { isAppError, type AppError, type ErrorCode } from "@/server/errors";

/**
 * What the source did wrong, which the project's fallback image stands in for: missing or gone, an
 * origin failing or too slow, or bytes that are not an image. Not the request's faults (signature,
 * operations, policy, limits) nor the service's (overload): those keep their JSON error.
 */
const SOURCE_FAILURES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "SOURCE_NOT_FOUND",
  "SOURCE_GONE",
  "SOURCE_FAILED",
  "SOURCE_REDIRECT_FORBIDDEN",
  "SOURCE_TIMEOUT",
  "UNSUPPORTED_IMAGE",
  "IMAGE_DECODE_FAILED",
]);

/** Long enough to spare a failing origin a storm, short enough that a fixed source shows up soon. */
export const FALLBACK_MAX_AGE = 60;

/** The header naming the error a fallback answer stands in for (its public code). */
export const FALLBACK_HEADER = "X-OptStuff-Fallback";

export function fallbackFor(
  error: unknown,
  project: Pick<ProjectConfig, "fallback">,
): { error: AppError; sha256: string } | null {
  if (!project.fallback || !isAppError(error) || !SOURCE_FAILURES.has(error.code)) return null;
  return { error, sha256: project.fallback.sha256 };
}

/**
 * A fallback answer is not the URL's image: cached briefly, without an ETag (a revalidation must not
 * keep the stand-in once the source works), and saying what it stands in for.
 */
export function asFallback(headers: Headers, error: AppError): Headers {
  headers.set("Cache-Control", `public, max-age=${FALLBACK_MAX_AGE}, s-maxage=${FALLBACK_MAX_AGE}`);
  headers.delete("ETag");
  headers.set(FALLBACK_HEADER, error.publicCode);
  return headers;
}

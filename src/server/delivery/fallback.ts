import type { ProjectConfig } from "@/server/config-cache/model";
import type { AppError } from "@/server/errors";
import { isSourceFailure } from "./source-failures";

/** Long enough to spare a failing origin a storm, short enough that a fixed source shows up soon. */
export const FALLBACK_MAX_AGE = 60;

/** The header naming the error a fallback answer stands in for (its public code). */
export const FALLBACK_HEADER = "X-OptStuff-Fallback";

/** The project's fallback image stands in for a source failure (source-failures.ts), never for the request's faults. */
export function fallbackFor(
  error: unknown,
  project: Pick<ProjectConfig, "fallback">,
): { error: AppError; sha256: string } | null {
  if (!project.fallback || !isSourceFailure(error)) return null;
  return { error, sha256: project.fallback.sha256 };
}

/**
 * A fallback answer is not the URL's image: cached briefly, without an ETag (a revalidation must not
 * keep the stand-in once the source works), and saying what it stands in for.
 */
export function asFallback(headers: Headers, error: AppError): Headers {
  headers.set("Cache-Control", `public, max-age=${FALLBACK_MAX_AGE}, s-maxage=${FALLBACK_MAX_AGE}`);
  headers.set("CDN-Cache-Control", `public, max-age=${FALLBACK_MAX_AGE}`);
  headers.delete("ETag");
  headers.set(FALLBACK_HEADER, error.publicCode);
  return headers;
}

import type { ProjectConfig } from "@/server/config-cache";
import { AppError } from "@/server/errors";
import { assertSourceAllowed, isRefererAllowed, parseSource, type SourceLocation } from "@/server/source";

type BucketLocation = Extract<SourceLocation, { kind: "bucket" }>;

/**
 * An image request's source as the project allows it: the page that asked (its Referer, where the
 * project restricts them), then the source itself. Throws REFERER_NOT_ALLOWED or SOURCE_NOT_ALLOWED.
 */
export function requestSource(
  source: string,
  project: Pick<ProjectConfig, "buckets" | "allowedSourceHosts" | "allowedRefererHosts">,
  headers: Headers,
): SourceLocation {
  if (!isRefererAllowed(headers.get("referer"), project.allowedRefererHosts)) throw new AppError("REFERER_NOT_ALLOWED");
  return allowedSource(parseSource(source), project);
}

/**
 * The project's source policy, as the image route applies it and the dashboard's URL tester checks it:
 * a bucket by its alias, anything else by the allowed host list. Throws SOURCE_NOT_ALLOWED.
 */
export function allowedSource(
  location: SourceLocation,
  project: Pick<ProjectConfig, "buckets" | "allowedSourceHosts">,
): SourceLocation {
  if (location.kind === "bucket") return bucketLocation(location, project);
  assertSourceAllowed(location, project.allowedSourceHosts);
  return location;
}

/**
 * `s3/{alias}/…` is allowed by the alias being one of the project's buckets (as a host list allows a
 * host), and carries the alias's revision from then on, so its keys follow where the alias points.
 */
function bucketLocation(location: BucketLocation, project: Pick<ProjectConfig, "buckets">): BucketLocation {
  const bucket = Object.hasOwn(project.buckets, location.alias) ? project.buckets[location.alias] : undefined;
  if (!bucket)
    throw new AppError("SOURCE_NOT_ALLOWED", {
      detail: `bucket alias ${location.alias} is not one of the project's buckets`,
    });
  return { ...location, revision: bucket.revision };
}

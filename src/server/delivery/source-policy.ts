import type { ProjectConfig } from "@/server/config-cache";
import { assertSourceAllowed, type SourceLocation } from "@/server/source";
import { bucketLocation } from "./buckets";

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

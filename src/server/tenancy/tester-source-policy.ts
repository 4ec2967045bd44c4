import { createDatabaseConfigStore, type ProjectConfig } from "@/server/config-cache";
import { allowedSource } from "@/server/delivery/source-policy";
import { AppError, isAppError } from "@/server/errors";
import type { SourceLocation } from "@/server/source";
import type { TenancyDeps } from "./deps";
import type { ProjectScope } from "./projects";

/**
 * Refuses, at the URL tester's source field, a source the image route would refuse by the project's
 * policy. The route answers that with a bare 403 (it must not tell a prober which check failed); a
 * signed-in member is told which list to change instead. The decision itself is the route's: its own
 * functions, on the project's config as its store reads it, so the tester and the route cannot disagree
 * about `local/…`, `s3/{alias}/…`, `*` or `*.example.com`.
 */
export async function assertTesterSourceAllowed(
  deps: Pick<TenancyDeps, "db">,
  scope: ProjectScope,
  location: SourceLocation,
): Promise<void> {
  const project = await createDatabaseConfigStore(deps.db).getProject(scope.projectId);
  if (!project) throw new AppError("NOT_FOUND", { message: "Project not found" });
  try {
    allowedSource(location, project);
  } catch (error) {
    if (!isAppError(error) || error.code !== "SOURCE_NOT_ALLOWED") throw error;
    throw new AppError("INVALID_INPUT", {
      message: whatToChange(location, project),
      detail: error.detail,
      cause: error,
      field: "source",
    });
  }
}

function whatToChange(location: SourceLocation, project: Pick<ProjectConfig, "allowedSourceHosts">): string {
  if (location.kind === "bucket")
    return `This project has no bucket "${location.alias}": add it in the project's Buckets tab, or use one of its aliases`;
  if (location.kind === "local") {
    // `*` admits any public host but never the server's folder, which surprises people who listed it.
    const anyHost = project.allowedSourceHosts.includes("*") ? ' ("*" admits remote hosts only)' : "";
    return `local/ sources are not allowed in this project${anyHost}: add "local" to its allowed source hosts in Settings`;
  }
  return `${location.url.origin} is not one of this project's allowed source hosts: add it in Settings (Allowed source hosts)`;
}

import type { AuditTrail } from "@/server/audit/trail";
import type { Database } from "@/server/db/client";
import type { SecretBox } from "@/server/signing";
import { createApiKey, type CreatedApiKey } from "./create-api-key";
import { createTeam, findTeamBySlug, type TeamRow } from "./teams";
import { createProject, findProject, writeProject, type ProjectRow } from "./projects";

export interface BootstrapInput {
  teamSlug: string;
  projectSlug: string;
  keyName: string;
  /** Replaces the project's source hosts when given. */
  sourceHosts?: readonly string[];
  /** A new project's source hosts when none are given (an existing project keeps its own). */
  newProjectSourceHosts?: readonly string[];
  /** Accept loopback source hosts (development and tests only). */
  allowLoopback?: boolean;
  /** A new team's owner: the instance's owner when there is one (null: the first account adopts it). */
  ownerId?: string | null;
}

export interface BootstrapResult {
  team: TeamRow;
  project: ProjectRow;
  key: CreatedApiKey;
  created: { team: boolean; project: boolean };
}

/**
 * Team and project are reused when they exist (re-running is safe); a new key is made every time.
 * Changing an existing project's hosts does not drop its cached copy: the caller does.
 */
export async function bootstrap(
  deps: { db: Database; secretBox: SecretBox; audit: AuditTrail; now: () => Date },
  input: BootstrapInput,
): Promise<BootstrapResult> {
  const policy = { allowLoopback: input.allowLoopback ?? false };
  const existingTeam = await findTeamBySlug(deps, input.teamSlug);
  const team =
    existingTeam ??
    (await createTeam(deps, { name: input.teamSlug, slug: input.teamSlug, ownerId: input.ownerId ?? undefined }));
  const existingProject = await findProject(deps, team.id, input.projectSlug);
  let project =
    existingProject ??
    (await createProject(
      deps,
      {
        teamId: team.id,
        name: input.projectSlug,
        slug: input.projectSlug,
        allowedSourceHosts: input.sourceHosts ?? input.newProjectSourceHosts ?? [],
      },
      policy,
    ));
  if (existingProject && input.sourceHosts) {
    project = await writeProject(
      deps,
      { teamId: team.id, projectId: project.id },
      { allowedSourceHosts: input.sourceHosts },
      policy,
    );
  }
  const key = await createApiKey(deps, { projectId: project.id }, { name: input.keyName });
  return { team, project, key, created: { team: !existingTeam, project: !existingProject } };
}

import type { Database } from "@/server/db/client";
import { listApiKeys, type ApiKeyRow } from "@/server/tenancy/api-keys";
import { findProject, type ProjectRow } from "@/server/tenancy/projects";
import { findTeamBySlug, type TeamRow } from "@/server/tenancy/teams";
import { CliError } from "./errors";

/** `--team`, read as the dashboard's URLs read it: an unknown slug is refused by name. */
export async function resolveTeam(db: Database, teamSlug: string): Promise<TeamRow> {
  const team = await findTeamBySlug({ db }, teamSlug);
  if (!team) throw new CliError(`No team "${teamSlug}" (optstuff teams list shows them)`);
  return team;
}

/** `--team` and `--project` together: a project is only ever addressed through its team. */
export async function resolveProject(
  db: Database,
  teamSlug: string,
  projectSlug: string,
): Promise<{ team: TeamRow; project: ProjectRow; scope: { teamId: string; projectId: string } }> {
  const team = await resolveTeam(db, teamSlug);
  const project = await findProject({ db }, team.id, projectSlug);
  if (!project)
    throw new CliError(
      `No project "${projectSlug}" in team "${team.slug}" (optstuff projects list --team ${team.slug})`,
    );
  return { team, project, scope: { teamId: team.id, projectId: project.id } };
}

/** `--key pk_…` among the project's keys, whatever its status. */
export async function findProjectKey(
  deps: { db: Database; now: () => Date },
  scope: { teamId: string; projectId: string },
  publicKey: string,
): Promise<ApiKeyRow> {
  const key = (await listApiKeys(deps, scope)).find((k) => k.publicKey === publicKey);
  if (!key) throw new CliError(`No key ${publicKey} in this project (optstuff keys list shows them)`);
  return key;
}

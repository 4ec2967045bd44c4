import type { Database } from "@/server/db/client";
import { findProject, type ProjectRow } from "@/server/tenancy/projects";
import { findTeamBySlug, type TeamRow } from "@/server/tenancy/teams";
import { CliError } from "./errors";

/** `--team`, read as the dashboard's URLs read it: an unknown slug is refused by name. */
export async function resolveTeam(db: Database, teamSlug: string): Promise<TeamRow> {
  const team = await findTeamBySlug(db, teamSlug);
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
  const project = await findProject(db, team.id, projectSlug);
  if (!project)
    throw new CliError(
      `No project "${projectSlug}" in team "${team.slug}" (optstuff projects list --team ${team.slug})`,
    );
  return { team, project, scope: { teamId: team.id, projectId: project.id } };
}

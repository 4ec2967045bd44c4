import { AppError } from "@/server/errors";
import type { TenancyDeps } from "./deps";
import { findProject, type ProjectRow } from "./projects";
import { assertCan, type Permission } from "./roles";
import { resolveMembership, type Membership } from "./teams";

/**
 * The one place a signed-in account's scope is resolved, for the dashboard's procedures and for the
 * exports: the team named by its slug, with the role of the account's own membership (never from
 * input). A stranger is told there is no such team, as if it did not exist; a member whose role lacks
 * `permission` is refused.
 */
export async function teamScope(
  deps: Pick<TenancyDeps, "db">,
  userId: string,
  teamSlug: string,
  permission: Permission,
): Promise<Membership> {
  const membership = await resolveMembership(deps, userId, teamSlug);
  if (!membership) throw new AppError("NOT_FOUND", { message: "Team not found" });
  assertCan(membership.role, permission);
  return membership;
}

/** A project of a team already resolved, by its slug: another team's project is not found. */
export async function projectInTeam(
  deps: Pick<TenancyDeps, "db">,
  teamId: string,
  projectSlug: string,
): Promise<ProjectRow> {
  const project = await findProject(deps, teamId, projectSlug);
  if (!project) throw new AppError("NOT_FOUND", { message: "Project not found" });
  return project;
}

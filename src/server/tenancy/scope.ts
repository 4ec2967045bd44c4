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
  deps: Pick<TenancyDeps, "db" | "secondFactorRequired">,
  viewer: Viewer,
  teamSlug: string,
  permission: Permission,
): Promise<Membership> {
  const membership = await resolveMembership(deps, viewer.id, teamSlug);
  if (!membership) throw new AppError("NOT_FOUND", { message: "Team not found" });
  assertSecondFactor(deps, viewer, membership.team);
  assertCan(membership.role, permission);
  return membership;
}

/** The signed-in account as its scope is checked: who, and whether it signs in with a second factor. */
export interface Viewer {
  id: string;
  secondFactor: boolean;
}

/**
 * A team (or the whole instance) that requires a second factor keeps out a member without one, whatever
 * the role: the member is sent to set one up (the layouts redirect on this code).
 */
export function assertSecondFactor(
  deps: Pick<TenancyDeps, "secondFactorRequired">,
  viewer: Viewer,
  team: { requireSecondFactor: boolean } | null,
): void {
  if (viewer.secondFactor || !(deps.secondFactorRequired || team?.requireSecondFactor)) return;
  throw new AppError("SECOND_FACTOR_REQUIRED");
}

/** Requiring a second factor of a team's members starts with the admin who asks: else the next page locks them out. */
export function assertOwnSecondFactor(viewer: Viewer): void {
  if (viewer.secondFactor) return;
  throw new AppError("INVALID_INPUT", {
    message: "Set up your own second factor first, on your account page",
    field: "requireSecondFactor",
  });
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

import { and, asc, count, eq, inArray, notExists, sql } from "drizzle-orm";
import { nameSchema, slugSchema } from "@/lib/schemas/names";
import type { Database } from "@/server/db/client";
import { isUniqueViolation } from "@/server/db/errors";
import { apiKeys, projects, teamMembers, teams, user } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import { changesBetween } from "@/server/audit/changes";
import type { TenancyDeps } from "./deps";
import { assertBelowQuota, quotas } from "./quotas";
import { can, type TeamRole } from "./roles";

export interface TeamRow {
  id: string;
  name: string;
  slug: string;
  pendingOnboarding: boolean;
  requireSecondFactor: boolean;
}

export interface Membership {
  team: TeamRow;
  role: TeamRole;
}

/** A team's row as the dashboard reads it. */
export const teamColumns = {
  id: teams.id,
  name: teams.name,
  slug: teams.slug,
  pendingOnboarding: teams.pendingOnboarding,
  requireSecondFactor: teams.requireSecondFactor,
};

/**
 * Creates a team; with an owner, the team and the owner's membership are one transaction, within the
 * teams an account may own (quotas.ts). A team without one (made by the command line before anyone
 * signed up) is the operator's.
 */
export async function createTeam(
  deps: Pick<TenancyDeps, "db" | "audit">,
  input: { name: string; slug: string; ownerId?: string; pendingOnboarding?: boolean },
): Promise<TeamRow> {
  const values = {
    name: nameSchema.parse(input.name),
    slug: slugSchema.parse(input.slug),
    pendingOnboarding: input.pendingOnboarding ?? false,
  };
  try {
    return await deps.db.transaction(async (tx) => {
      if (input.ownerId) await assertRoomForTeam({ db: tx }, input.ownerId);
      const [row] = await tx.insert(teams).values(values).returning(teamColumns);
      if (input.ownerId) await tx.insert(teamMembers).values({ teamId: row!.id, userId: input.ownerId, role: "owner" });
      await deps.audit.record(tx, {
        teamId: row!.id,
        action: "team.created",
        target: teamTarget(row!),
        changes: changesBetween(null, row!, ["name", "slug"]),
      });
      return row!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("SLUG_TAKEN", { cause: error, field: "slug" });
    throw error;
  }
}

export async function findTeamBySlug(deps: Pick<TenancyDeps, "db">, slug: string): Promise<TeamRow | null> {
  const [row] = await deps.db.select(teamColumns).from(teams).where(eq(teams.slug, slug));
  return row ?? null;
}

/** The session user's membership in the team at this slug; null when not a member (or no such team). */
export async function resolveMembership(
  deps: Pick<TenancyDeps, "db">,
  userId: string,
  teamSlug: string,
): Promise<Membership | null> {
  const [row] = await deps.db
    .select({ ...teamColumns, role: teamMembers.role })
    .from(teams)
    .innerJoin(teamMembers, and(eq(teamMembers.teamId, teams.id), eq(teamMembers.userId, userId)))
    .where(eq(teams.slug, teamSlug));
  if (!row) return null;
  const { role, ...team } = row;
  return { team, role };
}

export async function listTeamsForUser(
  deps: Pick<TenancyDeps, "db">,
  userId: string,
): Promise<Array<TeamRow & { role: TeamRole }>> {
  return deps.db
    .select({ ...teamColumns, role: teamMembers.role })
    .from(teams)
    .innerJoin(teamMembers, eq(teamMembers.teamId, teams.id))
    .where(eq(teamMembers.userId, userId))
    .orderBy(asc(teams.name));
}

/** Every team of the instance, with its member and project counts: the operator's view (command line). */
export async function listAllTeams(
  deps: Pick<TenancyDeps, "db">,
): Promise<Array<TeamRow & { members: number; projects: number }>> {
  const { db } = deps;
  const memberCounts = db
    .select({ teamId: teamMembers.teamId, n: count().as("members") })
    .from(teamMembers)
    .groupBy(teamMembers.teamId)
    .as("member_counts");
  const projectCounts = db
    .select({ teamId: projects.teamId, n: count().as("projects") })
    .from(projects)
    .groupBy(projects.teamId)
    .as("project_counts");
  const rows = await db
    .select({ ...teamColumns, members: memberCounts.n, projects: projectCounts.n })
    .from(teams)
    .leftJoin(memberCounts, eq(memberCounts.teamId, teams.id))
    .leftJoin(projectCounts, eq(projectCounts.teamId, teams.id))
    .orderBy(asc(teams.slug));
  return rows.map((row) => ({ ...row, members: row.members ?? 0, projects: row.projects ?? 0 }));
}

/**
 * Teams nobody belongs to (made by the command line before anyone signed up, as the quickstart's demo
 * is) become the user's, as owner: no team is left that no account can see. Returns their slugs.
 */
export async function adoptOwnerlessTeams(deps: Pick<TenancyDeps, "db" | "audit">, userId: string): Promise<string[]> {
  return deps.db.transaction(async (tx) => {
    const ownerless = await tx
      .select({ id: teams.id, slug: teams.slug, name: teams.name })
      .from(teams)
      .where(
        notExists(
          tx
            .select({ one: sql`1` })
            .from(teamMembers)
            .where(eq(teamMembers.teamId, teams.id)),
        ),
      )
      .for("update");
    if (ownerless.length === 0) return [];
    await tx
      .insert(teamMembers)
      .values(ownerless.map((team) => ({ teamId: team.id, userId, role: "owner" as const })))
      .onConflictDoNothing();
    const [owner] = await tx.select({ email: user.email }).from(user).where(eq(user.id, userId));
    for (const team of ownerless)
      await deps.audit.record(tx, {
        teamId: team.id,
        action: "member.adopted",
        target: { id: userId, label: owner?.email ?? userId },
        changes: { role: { from: null, to: "owner" } },
      });
    return ownerless.map((team) => team.slug);
  });
}

/**
 * The owner's row is locked for the count (NO KEY UPDATE: two creations at once count in turn, while
 * memberships referencing the row are still written). Teams an account only belongs to (invited) are
 * not its own.
 */
export async function assertRoomForTeam(deps: Pick<TenancyDeps, "db">, ownerId: string): Promise<void> {
  await deps.db.select({ id: user.id }).from(user).where(eq(user.id, ownerId)).for("no key update");
  assertBelowQuota(quotas.teamsPerAccount, await ownedTeams(deps.db, ownerId));
}

async function ownedTeams(db: Database, userId: string): Promise<number> {
  const [owned] = await db
    .select({ n: count() })
    .from(teamMembers)
    .where(and(eq(teamMembers.userId, userId), eq(teamMembers.role, "owner")));
  return owned?.n ?? 0;
}

/**
 * For the live check while typing, and only for a slug the account could take: a new team's while it
 * owns fewer than its quota, or, with `teamSlug`, that team's new slug where it may rename it. Any
 * other question is answered with why it could not take the slug anyway, so the check tells no more
 * about other teams' slugs than creating a team would (the procedure also bounds its rate).
 */
export async function checkSlugAvailable(
  deps: Pick<TenancyDeps, "db">,
  userId: string,
  input: { slug: string; teamSlug?: string },
): Promise<{ available: boolean; reason: string | null }> {
  const parsed = slugSchema.safeParse(input.slug);
  if (!parsed.success) return { available: false, reason: parsed.error.issues[0]?.message ?? "Invalid slug" };
  const renaming = input.teamSlug ? await resolveMembership(deps, userId, input.teamSlug) : null;
  if (!renaming || !can(renaming.role, "team.update")) {
    if ((await ownedTeams(deps.db, userId)) >= quotas.teamsPerAccount.max)
      return { available: false, reason: quotas.teamsPerAccount.refusal };
  }
  const taken = await findTeamBySlug(deps, parsed.data);
  return taken ? { available: false, reason: "That slug is already taken" } : { available: true, reason: null };
}

export async function updateTeam(
  deps: Pick<TenancyDeps, "db" | "audit">,
  teamId: string,
  input: { name?: string; slug?: string; pendingOnboarding?: false; requireSecondFactor?: boolean },
): Promise<TeamRow> {
  const changes = {
    ...input,
    ...(input.name !== undefined && { name: nameSchema.parse(input.name) }),
    ...(input.slug !== undefined && { slug: slugSchema.parse(input.slug) }),
    updatedAt: new Date(),
  };
  try {
    return await deps.db.transaction(async (tx) => {
      // NO KEY UPDATE: the team's other audited changes (a key share each) are not held up by it.
      const [before] = await tx.select(teamColumns).from(teams).where(eq(teams.id, teamId)).for("no key update");
      if (!before) throw new AppError("NOT_FOUND");
      const [row] = await tx.update(teams).set(changes).where(eq(teams.id, teamId)).returning(teamColumns);
      const changed = changesBetween(before, row!, ["name", "slug", "pendingOnboarding", "requireSecondFactor"]);
      if (changed)
        await deps.audit.record(tx, { teamId, action: "team.updated", target: teamTarget(row!), changes: changed });
      return row!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("SLUG_TAKEN", { cause: error, field: "slug" });
    throw error;
  }
}

/** Deletes the team with its projects and keys (cascade), then drops every cached key and project. */
export async function deleteTeam(
  deps: Pick<TenancyDeps, "db" | "invalidate" | "audit">,
  teamId: string,
): Promise<void> {
  const removed = await deps.db.transaction(async (tx) => {
    // Locking the projects makes a concurrent key creation wait for this delete (and then fail), so no
    // key escapes the invalidation below.
    const owned = await tx.select({ id: projects.id }).from(projects).where(eq(projects.teamId, teamId)).for("update");
    const keys = await keysOfProjects(
      { db: tx },
      owned.map((p) => p.id),
    );
    // The team's row is locked last, by the delete: every audited change of the team holds a key
    // share on it (the entry's reference), so locking it first would deadlock with them.
    const [team] = await tx.delete(teams).where(eq(teams.id, teamId)).returning(teamColumns);
    if (!team) throw new AppError("NOT_FOUND");
    // The team's own entries go with it; this one is the instance's, so its owner can still see it.
    await deps.audit.record(tx, {
      teamId: null,
      action: "team.deleted",
      target: teamTarget(team),
      changes: { projects: { from: owned.length, to: 0 } },
    });
    return owned.map((p) => ({
      projectId: p.id,
      publicKeys: keys.filter((k) => k.projectId === p.id).map((k) => k.publicKey),
    }));
  });
  for (const { projectId, publicKeys } of removed) await deps.invalidate.project(projectId, publicKeys);
}

/** How the log names a team. */
export const teamTarget = (row: Pick<TeamRow, "id" | "name" | "slug">) => ({
  id: row.id,
  label: `${row.name} (${row.slug})`,
});

export async function keysOfProjects(
  deps: Pick<TenancyDeps, "db">,
  projectIds: string[],
): Promise<Array<{ projectId: string; publicKey: string }>> {
  if (projectIds.length === 0) return [];
  return deps.db
    .select({ projectId: apiKeys.projectId, publicKey: apiKeys.publicKey })
    .from(apiKeys)
    .where(inArray(apiKeys.projectId, projectIds));
}

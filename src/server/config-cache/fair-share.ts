import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { projects, teamMembers } from "@/server/db/schema";

/**
 * The unit of fairness of the transform slots and queues (image route, previews, uploads, the AVIFs
 * made later): the account that owns a team, its first owner. Teams and projects cost nothing to make
 * (an account may own 20 teams), so a share per team or per project would multiply for free; an
 * account is what invitation-only sign-up hands out one at a time. A team nobody owns yet (made by the
 * command line before anyone signed up) belongs to the instance's first account, which adopts it:
 * they share the instance's one share meanwhile.
 */
export const INSTANCE_SHARE = "instance";

export const accountShare = (userId: string) => `account:${userId}`;

/** What a cached configuration written before accounts were the unit counts against. */
export const teamShare = (teamId: string) => `team:${teamId}`;

/**
 * The first owner of a project's team, as a column of a query over `projects`. Names are written out:
 * drizzle leaves a selected column unqualified, which inside this subquery would name team_members'.
 */
export const firstOwnerOfProjectTeam = sql<
  string | null
>`(select "owners"."user_id" from ${teamMembers} as "owners" where "owners"."team_id" = ${projects}."team_id" and "owners"."role" = 'owner' order by "owners"."created_at", "owners"."user_id" limit 1)`;

export const shareOf = (firstOwner: string | null) => (firstOwner ? accountShare(firstOwner) : INSTANCE_SHARE);

/** The share a team's work counts against (uploads, which have a team but no cached project). */
export async function teamAccountShare(db: Database, teamId: string): Promise<string> {
  const [owner] = await db
    .select({ userId: teamMembers.userId })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, "owner")))
    .orderBy(asc(teamMembers.createdAt), asc(teamMembers.userId))
    .limit(1);
  return shareOf(owner?.userId ?? null);
}

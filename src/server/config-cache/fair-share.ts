import { sql, type SQL } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { rowsOf } from "@/server/db/rows-of";
import { projects, teamMembers } from "@/server/db/schema";

/**
 * The unit of fairness of the transform slots and queues (image route, previews, uploads, the AVIFs
 * made later): the account that owns a team, its first owner. Teams and projects cost nothing to make
 * (an account may own 20 teams), so a share per team or per project would multiply for free. An account
 * costs what sign-up asks: an invitation by default (which any team admin can send, at the change
 * rate), nothing under open registration (docs/security.md says so). A team nobody owns yet (made by the
 * command line before anyone signed up) belongs to the instance's first account, which adopts it: they
 * share the instance's one share meanwhile.
 */
export const INSTANCE_SHARE = "instance";

export const accountShare = (userId: string) => `account:${userId}`;

/** What a cached configuration written before accounts were the unit counts against. */
export const teamShare = (teamId: string) => `team:${teamId}`;

/**
 * The first owner of a team, as a subquery: the one rule, whether the team is a project's (a column of a
 * query over `projects`) or given. Names are written out: drizzle leaves a selected column unqualified,
 * which inside this subquery would name team_members' own.
 */
const firstOwnerOf = (team: SQL) =>
  sql<
    string | null
  >`(select "owners"."user_id" from ${teamMembers} as "owners" where "owners"."team_id" = ${team} and "owners"."role" = 'owner' order by "owners"."created_at", "owners"."user_id" limit 1)`;

export const firstOwnerOfProjectTeam = firstOwnerOf(sql`${projects}."team_id"`);

export const shareOf = (firstOwner: string | null) => (firstOwner ? accountShare(firstOwner) : INSTANCE_SHARE);

/** The share a team's work counts against (uploads, which have a team but no cached project). */
export async function teamAccountShare(db: Database, teamId: string): Promise<string> {
  const [row] = rowsOf<{ owner: string | null }>(
    await db.execute(sql`select ${firstOwnerOf(sql`${teamId}::uuid`)} as owner`),
  );
  return shareOf(row?.owner ?? null);
}

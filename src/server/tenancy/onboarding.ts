import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { slugify } from "@/lib/slugify";
import { teamMembers, teams } from "@/server/db/schema";
import { auditTrail, userActor } from "@/server/audit/trail";
import type { TenancyDeps } from "./deps";
import { createTeam, updateTeam, type TeamRow } from "./teams";

/**
 * Every account starts with a team of its own, so the dashboard is never empty. Its slug is made up
 * (from the email and a random suffix) and flagged for onboarding, where the user picks the real one.
 */
export async function createPersonalTeam(
  deps: Pick<TenancyDeps, "db" | "audit">,
  user: { id: string; name: string; email: string },
): Promise<TeamRow> {
  const base = slugify(user.email.split("@")[0]!).slice(0, 30).replace(/-+$/, "") || "team";
  const slug = `${base.length >= 2 ? base : `${base}-team`}-${randomBytes(3).toString("hex")}`;
  const name = `${user.name.trim() || base}'s team`.slice(0, 80);
  return createTeam(deps, { name, slug, ownerId: user.id, pendingOnboarding: true });
}

/**
 * A new account's first moments: its creation written to the instance's log and its personal team
 * made, together, as the account itself (better-auth's hook runs after the account's own insert).
 */
export async function setUpNewAccount(
  deps: Pick<TenancyDeps, "db" | "now">,
  account: { id: string; name: string; email: string },
): Promise<void> {
  const audit = auditTrail(userActor(account, { ip: null, userAgent: null }), deps.now);
  await deps.db.transaction(async (tx) => {
    await audit.record(tx, {
      teamId: null,
      action: "account.created",
      target: { id: account.id, label: account.email },
    });
    await createPersonalTeam({ db: tx, audit }, account);
  });
}

/** The user's personal team still waiting for its name, if any. */
export async function findPendingTeam(deps: Pick<TenancyDeps, "db">, userId: string): Promise<TeamRow | null> {
  const [row] = await deps.db
    .select({ id: teams.id, name: teams.name, slug: teams.slug, pendingOnboarding: teams.pendingOnboarding })
    .from(teams)
    .innerJoin(
      teamMembers,
      and(eq(teamMembers.teamId, teams.id), eq(teamMembers.userId, userId), eq(teamMembers.role, "owner")),
    )
    .where(eq(teams.pendingOnboarding, true))
    .limit(1);
  return row ?? null;
}

/** Names the pending team; when there is none (deleted meanwhile), creates the team instead. */
export async function completeOnboarding(
  deps: Pick<TenancyDeps, "db" | "audit">,
  userId: string,
  input: { name: string; slug: string },
): Promise<TeamRow> {
  const pending = await findPendingTeam(deps, userId);
  if (!pending) return createTeam(deps, { ...input, ownerId: userId });
  return updateTeam(deps, pending.id, { ...input, pendingOnboarding: false });
}

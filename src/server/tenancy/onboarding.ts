import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { slugify } from "@/lib/slugify";
import { teamMembers, teams } from "@/server/db/schema";
import { auditTrail, userActor, type AuditTrail } from "@/server/audit/trail";
import type { Database } from "@/server/db/client";
import type { TenancyClock, TenancyDeps } from "./deps";
import { findPendingInvitation, hasPendingInvitation } from "./invitations";
import { adoptOwnerlessTeams, createTeam, teamColumns, updateTeam, type TeamRow } from "./teams";

/**
 * A team of the account's own, so the dashboard is never empty. Its slug is made up
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

/** A new account as better-auth wrote it. */
export interface NewAccount {
  id: string;
  name: string;
  email: string;
  /** A provider (GitHub, Google) vouches for the address. */
  emailVerified: boolean;
  /** `owner` for the instance's first account (create-auth.ts sets it). */
  instanceRole?: string | null;
}

/** How the sign-up came: the token of the invitation link it started from, if any. */
export interface SignUpOrigin {
  invitationToken: string | null;
  /** Made by single sign-on: the team it joins, and as what (OPTSTUFF_OIDC_TEAM and _ROLE). */
  joinTeam?: { slug: string; role: "member" | "admin" } | null;
}

/**
 * A new account's first moments, together, as the account itself (better-auth's hook runs after the
 * account's own insert): its creation written to the instance's log, then where it starts.
 * - The instance's owner takes the teams nobody belongs to (the quickstart's `demo`) and starts there.
 * - An account made from its invitation starts with no team: accepting the invitation is its next
 *   step; declining it leads to onboarding, which makes the team then (completeOnboarding).
 * - Any other gets a personal team, pending onboarding, so the dashboard is never empty.
 */
export async function setUpNewAccount(
  deps: Pick<TenancyDeps, "db" | "now">,
  account: NewAccount,
  origin: SignUpOrigin,
): Promise<void> {
  const audit = auditTrail(userActor(account, { ip: null, userAgent: null }), deps.now);
  await deps.db.transaction(async (tx) => {
    await audit.record(tx, {
      teamId: null,
      action: "account.created",
      target: { id: account.id, label: account.email },
    });
    if (account.instanceRole === "owner" && (await adoptOwnerlessTeams({ db: tx, audit }, account.id)).length > 0)
      return;
    if (await cameInvited({ db: tx, now: deps.now }, account, origin)) return;
    if (origin.joinTeam && (await joinTeamBySso({ db: tx, audit }, account, origin.joinTeam))) return;
    await createPersonalTeam({ db: tx, audit }, account);
  });
}

/**
 * The sign-up carried a pending invitation for this address (the link is what admitted it on an
 * invite-only server), or a provider verified an address that holds one (its round trip loses the link).
 */
async function cameInvited(deps: TenancyClock, account: NewAccount, origin: SignUpOrigin): Promise<boolean> {
  const email = account.email.trim().toLowerCase();
  if (origin.invitationToken) return (await findPendingInvitation(deps, origin.invitationToken))?.email === email;
  return account.emailVerified && (await hasPendingInvitation(deps, email));
}

/** An account single sign-on made joins the configured team; false when no team has that slug. */
async function joinTeamBySso(
  deps: { db: Database; audit: AuditTrail },
  account: NewAccount,
  join: NonNullable<SignUpOrigin["joinTeam"]>,
): Promise<boolean> {
  const [team] = await deps.db.select({ id: teams.id }).from(teams).where(eq(teams.slug, join.slug));
  if (!team) return false;
  await deps.db.insert(teamMembers).values({ teamId: team.id, userId: account.id, role: join.role });
  await deps.audit.record(deps.db, {
    teamId: team.id,
    action: "member.provisioned",
    target: { id: account.id, label: account.email },
    changes: { role: { from: null, to: join.role } },
  });
  return true;
}

/** The user's personal team still waiting for its name, if any. */
export async function findPendingTeam(deps: Pick<TenancyDeps, "db">, userId: string): Promise<TeamRow | null> {
  const [row] = await deps.db
    .select(teamColumns)
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

import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { emailSchema } from "@/lib/schemas/team";
import { isUniqueViolation } from "@/server/db/errors";
import { teamInvitations, teamMembers, teams, user } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import type { TenancyClock, TenancyDeps } from "./deps";
import type { Actor } from "./members";
import { can, teamRoles, type TeamRole } from "./roles";
import { assertRoomForTeam } from "./teams";

/**
 * An invitation link stays valid for a week; a new one for the same email replaces it. It carries its
 * inviter's authority: it stays valid only while the inviter could still make it (a member of the team
 * whose role may invite, an owner for an owner invitation). Demoting, removing or deleting the inviter
 * stops their pending invitations, and so does their leaving; the check is made wherever an invitation
 * is listed, shown, accepted or used to register, so no path misses it. (An inviter given the role back
 * before the week is over finds their invitations valid again.)
 */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export interface PendingInvitation {
  id: string;
  email: string;
  role: TeamRole;
  expiresAt: Date;
  createdAt: Date;
}

type Audited = Pick<TenancyDeps, "db" | "now" | "audit">;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** The token goes into the link once; only its hash is stored, so a database leak opens no team. */
export async function createInvitation(
  deps: Audited,
  actor: Actor,
  teamId: string,
  input: { email: string; role: TeamRole },
): Promise<{ id: string; token: string; expiresAt: Date; email: string }> {
  const { db } = deps;
  const now = deps.now();
  if (input.role === "owner" && actor.role !== "owner")
    throw new AppError("NOT_PERMITTED", { message: "Only an owner can invite an owner" });
  const email = emailSchema.parse(input.email);
  const [member] = await db
    .select({ userId: teamMembers.userId })
    .from(teamMembers)
    .innerJoin(user, eq(user.id, teamMembers.userId))
    .where(and(eq(teamMembers.teamId, teamId), eq(sql`lower(${user.email})`, email)));
  if (member) throw new AppError("ALREADY_MEMBER");
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  const id = await db.transaction(async (tx) => {
    // The address's open invitation, if any, is replaced: the entry says so.
    const replaced = await tx
      .update(teamInvitations)
      .set({ revokedAt: now })
      .where(and(eq(teamInvitations.teamId, teamId), eq(teamInvitations.email, email), open(now)))
      .returning({ id: teamInvitations.id });
    const [row] = await tx
      .insert(teamInvitations)
      .values({ teamId, email, role: input.role, tokenHash: hashToken(token), invitedBy: actor.userId, expiresAt })
      .returning({ id: teamInvitations.id });
    await deps.audit.record(tx, {
      teamId,
      action: "invitation.created",
      target: { id: row!.id, label: email },
      changes: {
        role: { from: null, to: input.role },
        expiresAt: { from: null, to: expiresAt },
        ...(replaced.length > 0 && { replacedInvitations: { from: replaced.length, to: 0 } }),
      },
    });
    return row!.id;
  });
  return { id, token, expiresAt, email };
}

export async function listInvitations(deps: TenancyClock, teamId: string): Promise<PendingInvitation[]> {
  const { db } = deps;
  const now = deps.now();
  return db
    .select({
      id: teamInvitations.id,
      email: teamInvitations.email,
      role: teamInvitations.role,
      expiresAt: teamInvitations.expiresAt,
      createdAt: teamInvitations.createdAt,
    })
    .from(teamInvitations)
    .where(and(eq(teamInvitations.teamId, teamId), pending(now)))
    .orderBy(desc(teamInvitations.createdAt));
}

export async function revokeInvitation(deps: Audited, teamId: string, invitationId: string): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(teamInvitations)
      .set({ revokedAt: now })
      .where(and(eq(teamInvitations.id, invitationId), eq(teamInvitations.teamId, teamId), pending(now)))
      .returning({ id: teamInvitations.id, email: teamInvitations.email, role: teamInvitations.role });
    if (!revoked) throw new AppError("NOT_FOUND", { message: "No pending invitation with that id" });
    await deps.audit.record(tx, {
      teamId,
      action: "invitation.revoked",
      target: { id: revoked.id, label: revoked.email },
      changes: { revokedAt: { from: null, to: now } },
    });
  });
}

export interface InvitationPreview {
  teamName: string;
  teamSlug: string;
  email: string;
  role: TeamRole;
  status: "pending" | "accepted" | "revoked" | "expired";
}

/** What the invitation page shows to whoever holds the link (the token is the capability). */
export async function previewInvitation(deps: TenancyClock, token: string): Promise<InvitationPreview | null> {
  const { db } = deps;
  const now = deps.now();
  const [row] = await db
    .select({
      teamName: teams.name,
      teamSlug: teams.slug,
      email: teamInvitations.email,
      role: teamInvitations.role,
      acceptedAt: teamInvitations.acceptedAt,
      revokedAt: teamInvitations.revokedAt,
      expiresAt: teamInvitations.expiresAt,
      inviterMayInvite: sql<boolean>`${inviterMayStillInvite()}`,
    })
    .from(teamInvitations)
    .innerJoin(teams, eq(teams.id, teamInvitations.teamId))
    .where(eq(teamInvitations.tokenHash, hashToken(token)));
  if (!row) return null;
  // An inviter who lost the right to invite took the invitation back with it: shown as revoked.
  const status = row.acceptedAt
    ? "accepted"
    : row.revokedAt || !row.inviterMayInvite
      ? "revoked"
      : row.expiresAt <= now
        ? "expired"
        : "pending";
  return { teamName: row.teamName, teamSlug: row.teamSlug, email: row.email, role: row.role, status };
}

/**
 * Joins the team. The invitation names an email address and only the account with that address may
 * use it: a forwarded or leaked link is useless to anyone else.
 */
export async function acceptInvitation(
  deps: Audited,
  token: string,
  account: { id: string; email: string },
): Promise<{ teamSlug: string }> {
  const { db } = deps;
  const now = deps.now();
  return db.transaction(async (tx) => {
    const [invitation] = await tx
      .select({
        id: teamInvitations.id,
        teamId: teamInvitations.teamId,
        email: teamInvitations.email,
        role: teamInvitations.role,
      })
      .from(teamInvitations)
      .where(and(eq(teamInvitations.tokenHash, hashToken(token)), pending(now)))
      .for("update");
    if (!invitation) throw new AppError("INVITATION_INVALID");
    if (invitation.email !== account.email.trim().toLowerCase()) throw new AppError("INVITATION_EMAIL_MISMATCH");
    if (invitation.role === "owner") await assertRoomForTeam({ db: tx }, account.id);
    try {
      await tx.insert(teamMembers).values({ teamId: invitation.teamId, userId: account.id, role: invitation.role });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("ALREADY_MEMBER", { cause: error });
      throw error;
    }
    await tx.update(teamInvitations).set({ acceptedAt: now }).where(eq(teamInvitations.id, invitation.id));
    await deps.audit.record(tx, {
      teamId: invitation.teamId,
      action: "member.joined",
      target: { id: account.id, label: account.email },
      changes: { role: { from: null, to: invitation.role } },
    });
    const [team] = await tx.select({ slug: teams.slug }).from(teams).where(eq(teams.id, invitation.teamId));
    return { teamSlug: team!.slug };
  });
}

/**
 * Declines it, as only the invited account may: the invitation is closed (shown as revoked from then
 * on) and the team's log says who declined, so its admins know not to wait.
 */
export async function declineInvitation(
  deps: Audited,
  token: string,
  account: { id: string; email: string },
): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const [invitation] = await tx
      .select({ id: teamInvitations.id, teamId: teamInvitations.teamId, email: teamInvitations.email })
      .from(teamInvitations)
      .where(and(eq(teamInvitations.tokenHash, hashToken(token)), pending(now)))
      .for("update");
    if (!invitation) throw new AppError("INVITATION_INVALID");
    if (invitation.email !== account.email.trim().toLowerCase()) throw new AppError("INVITATION_EMAIL_MISMATCH");
    await tx.update(teamInvitations).set({ revokedAt: now }).where(eq(teamInvitations.id, invitation.id));
    await deps.audit.record(tx, {
      teamId: invitation.teamId,
      action: "invitation.declined",
      target: { id: invitation.id, label: invitation.email },
    });
  });
}

/** The pending invitation a link's token opens (registration checks the address against it). */
export async function findPendingInvitation(deps: TenancyClock, token: string): Promise<{ email: string } | null> {
  const { db } = deps;
  const now = deps.now();
  const [row] = await db
    .select({ email: teamInvitations.email })
    .from(teamInvitations)
    .where(and(eq(teamInvitations.tokenHash, hashToken(token)), pending(now)));
  return row ?? null;
}

export async function hasPendingInvitation(deps: TenancyClock, email: string): Promise<boolean> {
  const { db } = deps;
  const now = deps.now();
  const [row] = await db
    .select({ id: teamInvitations.id })
    .from(teamInvitations)
    .where(and(eq(teamInvitations.email, email), pending(now)))
    .limit(1);
  return row !== undefined;
}

/** Not accepted, revoked or expired. */
function open(now: Date) {
  return and(isNull(teamInvitations.acceptedAt), isNull(teamInvitations.revokedAt), gt(teamInvitations.expiresAt, now));
}

/** Open, and its inviter may still make it. */
function pending(now: Date) {
  return and(open(now), inviterMayStillInvite());
}

const inviterRoles = teamRoles.filter((role) => can(role, "invitation.create"));

/** The inviter is a member of the invitation's team whose role may invite, an owner for an owner invitation. */
function inviterMayStillInvite() {
  return sql`exists (select 1 from ${teamMembers} where ${teamMembers.teamId} = ${teamInvitations.teamId} and ${teamMembers.userId} = ${teamInvitations.invitedBy} and (${teamMembers.role} = 'owner' or (${teamInvitations.role} <> 'owner' and ${inArray(teamMembers.role, inviterRoles)})))`;
}

import { and, asc, eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import type { TenancyDeps } from "./deps";
import { teamMembers, user } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import type { TeamRole } from "./roles";
import { assertRoomForTeam } from "./teams";

export interface MemberRow {
  userId: string;
  name: string;
  email: string;
  role: TeamRole;
  joinedAt: Date;
}

/** Who is acting, as resolved from the session and the team path. */
export interface Actor {
  userId: string;
  role: TeamRole;
}

export async function listMembers(deps: Pick<TenancyDeps, "db">, teamId: string): Promise<MemberRow[]> {
  return deps.db
    .select({
      userId: teamMembers.userId,
      name: user.name,
      email: user.email,
      role: teamMembers.role,
      joinedAt: teamMembers.createdAt,
    })
    .from(teamMembers)
    .innerJoin(user, eq(user.id, teamMembers.userId))
    .where(eq(teamMembers.teamId, teamId))
    .orderBy(asc(teamMembers.createdAt));
}

/**
 * Owners are only made or unmade by owners; admins manage members and admins. Runs with the team's
 * owner rows locked so two owners demoting each other at once cannot leave the team without one.
 */
export async function changeRole(
  deps: Pick<TenancyDeps, "db" | "audit">,
  actor: Actor,
  teamId: string,
  targetUserId: string,
  role: TeamRole,
): Promise<void> {
  await withOwnersLocked(deps.db, teamId, targetUserId, async (tx, { role: target, email }, owners) => {
    if ((target === "owner" || role === "owner") && actor.role !== "owner")
      throw new AppError("NOT_PERMITTED", { message: "Only an owner can grant or change the owner role" });
    if (target === "owner" && role !== "owner" && owners === 1) throw new AppError("LAST_OWNER");
    // Becoming an owner is owning one more team: the same quota as making one.
    if (role === "owner" && target !== "owner") await assertRoomForTeam({ db: tx }, targetUserId);
    await tx
      .update(teamMembers)
      .set({ role })
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, targetUserId)));
    if (role !== target)
      await deps.audit.record(tx, {
        teamId,
        action: "member.role_changed",
        target: { id: targetUserId, label: email },
        changes: { role: { from: target, to: role } },
      });
  });
}

export async function removeMember(
  deps: Pick<TenancyDeps, "db" | "audit">,
  actor: Actor,
  teamId: string,
  targetUserId: string,
): Promise<void> {
  await withOwnersLocked(deps.db, teamId, targetUserId, async (tx, { role: target, email }, owners) => {
    if (target === "owner" && actor.role !== "owner")
      throw new AppError("NOT_PERMITTED", { message: "Only an owner can remove an owner" });
    if (target === "owner" && owners === 1) throw new AppError("LAST_OWNER");
    await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, targetUserId)));
    await deps.audit.record(tx, {
      teamId,
      action: "member.removed",
      target: { id: targetUserId, label: email },
      changes: { role: { from: target, to: null } },
    });
  });
}

export async function leaveTeam(
  deps: Pick<TenancyDeps, "db" | "audit">,
  userId: string,
  teamId: string,
): Promise<void> {
  await withOwnersLocked(deps.db, teamId, userId, async (tx, { role, email }, owners) => {
    if (role === "owner" && owners === 1)
      throw new AppError("LAST_OWNER", {
        message: "You are the last owner: make someone else owner or delete the team",
      });
    await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    await deps.audit.record(tx, {
      teamId,
      action: "member.left",
      target: { id: userId, label: email },
      changes: { role: { from: role, to: null } },
    });
  });
}

type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

async function withOwnersLocked(
  db: Database,
  teamId: string,
  targetUserId: string,
  body: (tx: Tx, target: { role: TeamRole; email: string }, owners: number) => Promise<void>,
): Promise<void> {
  await db.transaction(async (tx) => {
    const rows = await tx
      .select({ userId: teamMembers.userId, role: teamMembers.role })
      .from(teamMembers)
      .where(eq(teamMembers.teamId, teamId))
      .for("update");
    const target = rows.find((r) => r.userId === targetUserId);
    if (!target) throw new AppError("NOT_FOUND", { message: "That person is not a member of this team" });
    const [account] = await tx.select({ email: user.email }).from(user).where(eq(user.id, targetUserId));
    const owners = rows.filter((r) => r.role === "owner").length;
    await body(tx, { role: target.role, email: account?.email ?? targetUserId }, owners);
  });
}

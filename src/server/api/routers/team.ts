import { z } from "zod";
import { invitationSchema, teamSchema } from "@/lib/schemas/team";
import { AppError } from "@/server/errors";
import { createInvitation, listInvitations, revokeInvitation } from "@/server/tenancy/invitations";
import { changeRole, leaveTeam, listMembers, removeMember } from "@/server/tenancy/members";
import { can, permissions, teamRoles, type Permission } from "@/server/tenancy/roles";
import { deleteTeam, updateTeam } from "@/server/tenancy/teams";
import { sendInvitationEmail } from "@/server/tenancy/invitation-email";
import { assertOwnSecondFactor } from "@/server/tenancy/scope";
import { router, teamProcedure } from "../trpc";

const role = z.enum(teamRoles);
const userId = z.object({ userId: z.string().min(1).max(100) });

export const teamRouter = router({
  get: teamProcedure("team.read").query(({ ctx }) => ({
    team: ctx.team,
    role: ctx.role,
    /** The instance requires a second factor of everyone: the team's own setting changes nothing. */
    secondFactorRequiredByInstance: ctx.services.tenancy.secondFactorRequired,
    /** What this role may do, so the pages only offer what will be accepted. */
    can: Object.fromEntries(Object.keys(permissions).map((p) => [p, can(ctx.role, p as Permission)])) as Record<
      Permission,
      boolean
    >,
  })),

  update: teamProcedure("team.update")
    .input(teamSchema.partial().extend({ requireSecondFactor: z.boolean().optional() }))
    .mutation(({ ctx, input }) => {
      if (input.requireSecondFactor) assertOwnSecondFactor(ctx.user);
      const { name, slug, requireSecondFactor } = input;
      return updateTeam(ctx.tenancy, ctx.team.id, { name, slug, requireSecondFactor });
    }),

  delete: teamProcedure("team.delete")
    .input(z.object({ confirmSlug: z.string().max(200) }))
    .mutation(async ({ ctx, input }) => {
      if (input.confirmSlug !== ctx.team.slug)
        throw new AppError("INVALID_INPUT", { message: "Type the team's slug to confirm" });
      await deleteTeam(ctx.tenancy, ctx.team.id);
    }),

  members: teamProcedure("member.read").query(({ ctx }) => listMembers(ctx.tenancy, ctx.team.id)),

  changeRole: teamProcedure("member.changeRole")
    .input(userId.extend({ role }))
    .mutation(({ ctx, input }) =>
      changeRole(ctx.tenancy, { userId: ctx.user.id, role: ctx.role }, ctx.team.id, input.userId, input.role),
    ),

  removeMember: teamProcedure("member.remove")
    .input(userId)
    .mutation(({ ctx, input }) =>
      removeMember(ctx.tenancy, { userId: ctx.user.id, role: ctx.role }, ctx.team.id, input.userId),
    ),

  leave: teamProcedure("member.leave").mutation(({ ctx }) => leaveTeam(ctx.tenancy, ctx.user.id, ctx.team.id)),

  invitations: teamProcedure("invitation.read").query(({ ctx }) => listInvitations(ctx.tenancy, ctx.team.id)),

  invite: teamProcedure("invitation.create")
    .input(invitationSchema)
    .mutation(async ({ ctx, input }) => {
      const actor = { userId: ctx.user.id, role: ctx.role };
      const created = await createInvitation(ctx.tenancy, actor, ctx.team.id, input);
      const link = `${ctx.services.publicBaseUrl}/invite/${created.token}`;
      const emailed = await sendInvitationEmail(ctx.services, {
        to: created.email,
        link,
        teamName: ctx.team.name,
        inviter: ctx.user.name,
      });
      return { id: created.id, link, emailed, expiresAt: created.expiresAt };
    }),

  revokeInvitation: teamProcedure("invitation.revoke")
    .input(z.object({ invitationId: z.uuid() }))
    .mutation(({ ctx, input }) => revokeInvitation(ctx.tenancy, ctx.team.id, input.invitationId)),
});

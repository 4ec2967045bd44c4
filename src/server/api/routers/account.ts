import { z } from "zod";
import { teamSchema } from "@/lib/schemas/team";
import { AppError } from "@/server/errors";
import { acceptInvitation, previewInvitation } from "@/server/tenancy/invitations";
import { completeOnboarding, findPendingTeam } from "@/server/tenancy/onboarding";
import { checkSlugAvailable, createTeam, listTeamsForUser } from "@/server/tenancy/teams";
import { protectedProcedure, publicProcedure, router } from "../trpc";

const token = z.object({ token: z.string().min(1).max(200) });

/** What concerns the signed-in person rather than one team. */
export const accountRouter = router({
  me: protectedProcedure.query(async ({ ctx }) => {
    const db = ctx.services.db;
    const [teams, pending] = await Promise.all([listTeamsForUser(db, ctx.user.id), findPendingTeam(db, ctx.user.id)]);
    return { user: ctx.user, teams, pendingTeamSlug: pending?.slug ?? null };
  }),

  /** The team forms' live check; `teamSlug` when renaming that team. Rate-limited per account. */
  slugAvailable: protectedProcedure
    .meta({ counts: "slugCheck" })
    .input(z.object({ slug: z.string().max(200), teamSlug: z.string().min(1).max(100).optional() }))
    .query(({ ctx, input }) => checkSlugAvailable(ctx.services.db, ctx.user.id, input)),

  completeOnboarding: protectedProcedure
    .input(teamSchema)
    .mutation(({ ctx, input }) => completeOnboarding(ctx.services.db, ctx.user.id, input)),

  createTeam: protectedProcedure
    .input(teamSchema)
    .mutation(({ ctx, input }) => createTeam(ctx.services.db, { ...input, ownerId: ctx.user.id })),

  /** Public: the invitation page tells a signed-out visitor which team invited them. */
  invitation: publicProcedure.input(token).query(async ({ ctx, input }) => {
    const preview = await previewInvitation(ctx.services.db, input.token, ctx.services.tenancy.now());
    if (!preview) throw new AppError("NOT_FOUND", { message: "This invitation link is not valid" });
    return preview;
  }),

  acceptInvitation: protectedProcedure
    .input(token)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.services.db, input.token, ctx.user, ctx.services.tenancy.now())),
});

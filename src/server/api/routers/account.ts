import { z } from "zod";
import { teamSchema } from "@/lib/schemas/team";
import { accountSecurity } from "@/server/auth/account-security";
import { AppError } from "@/server/errors";
import { acceptInvitation, declineInvitation, previewInvitation } from "@/server/tenancy/invitations";
import { completeOnboarding, findPendingTeam } from "@/server/tenancy/onboarding";
import { findInstanceOwner, signUpOffer } from "@/server/tenancy/registration";
import { checkSlugAvailable, createTeam, listTeamsForUser } from "@/server/tenancy/teams";
import { protectedProcedure, publicProcedure, router } from "../trpc";

const token = z.object({ token: z.string().min(1).max(200) });

/** What concerns the signed-in person rather than one team. */
export const accountRouter = router({
  me: protectedProcedure.query(async ({ ctx }) => {
    const tenancy = ctx.tenancy;
    const [teams, pending, owner] = await Promise.all([
      listTeamsForUser(tenancy, ctx.user.id),
      findPendingTeam(tenancy, ctx.user.id),
      findInstanceOwner(tenancy),
    ]);
    // The pending team is the personal one made at sign-up, until onboarding names it.
    return {
      user: ctx.user,
      teams,
      pendingTeamSlug: pending?.slug ?? null,
      pendingTeamName: pending?.name ?? null,
      /** The instance's owner reads the instance's audit log. */
      ownsInstance: owner?.id === ctx.user.id,
    };
  }),

  /** The account page: whether a second factor is on, and whether changing it asks for a password. */
  security: protectedProcedure.query(({ ctx }) => accountSecurity(ctx.tenancy.db, ctx.user.id)),

  /** The team forms' live check; `teamSlug` when renaming that team. Rate-limited per account. */
  slugAvailable: protectedProcedure
    .meta({ counts: "slugCheck" })
    .input(z.object({ slug: z.string().max(200), teamSlug: z.string().min(1).max(100).optional() }))
    .query(({ ctx, input }) => checkSlugAvailable(ctx.tenancy, ctx.user.id, input)),

  completeOnboarding: protectedProcedure
    .input(teamSchema)
    .mutation(({ ctx, input }) => completeOnboarding(ctx.tenancy, ctx.user.id, input)),

  createTeam: protectedProcedure
    .input(teamSchema)
    .mutation(({ ctx, input }) => createTeam(ctx.tenancy, { ...input, ownerId: ctx.user.id })),

  /** Public: the social sign-in buttons the sign-in and sign-up pages show. */
  signInProviders: publicProcedure.query(({ ctx }) => ctx.services.authProviders),

  /**
   * Public: what the sign-up page offers this visitor under the registration policy (a form, a form
   * for the address an invitation names, or why there is none), and the buttons that go with it.
   */
  signUpOffer: publicProcedure
    .input(z.object({ invitation: z.string().min(1).max(200).nullable() }))
    .query(async ({ ctx, input }) => {
      const { registration, authProviders, tenancy } = ctx.services;
      const offer = await signUpOffer(tenancy, registration, input.invitation);
      // Closed to everyone else, a provider account at one of the listed domains may still join; single
      // sign-on admits by its own domains (OPTSTUFF_OIDC_EMAIL_DOMAINS) whatever the policy.
      const providers =
        offer.kind !== "closed" || offer.emailDomains.length > 0
          ? authProviders
          : authProviders.filter((provider) => provider === "oidc");
      return { offer, providers };
    }),

  /** Public: the invitation page tells a signed-out visitor which team invited them. */
  invitation: publicProcedure.input(token).query(async ({ ctx, input }) => {
    const preview = await previewInvitation(ctx.tenancy, input.token);
    if (!preview) throw new AppError("NOT_FOUND", { message: "This invitation link is not valid" });
    return preview;
  }),

  acceptInvitation: protectedProcedure
    .input(token)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.tenancy, input.token, ctx.user)),

  /** The invited account says no: the invitation closes, and the account goes on to make its own team. */
  declineInvitation: protectedProcedure
    .input(token)
    .mutation(({ ctx, input }) => declineInvitation(ctx.tenancy, input.token, ctx.user)),
});

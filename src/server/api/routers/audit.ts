import { auditPageSchema } from "@/lib/schemas/audit";
import { auditActors, listAuditEntries } from "@/server/audit/audit-log";
import { AppError } from "@/server/errors";
import { findInstanceOwner } from "@/server/tenancy/registration";
import { protectedProcedure, router, teamProcedure } from "../trpc";

/** The instance's log is its owner's: anyone else is told there is nothing here. */
const instanceOwnerProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  if ((await findInstanceOwner(ctx.tenancy))?.id !== ctx.user.id) throw new AppError("NOT_FOUND");
  return next();
});

export const auditRouter = router({
  list: teamProcedure("audit.read")
    .input(auditPageSchema)
    .query(({ ctx, input }) => listAuditEntries(ctx.tenancy, { teamId: ctx.team.id }, input)),

  actors: teamProcedure("audit.read").query(({ ctx }) => auditActors(ctx.tenancy, { teamId: ctx.team.id })),

  instanceList: instanceOwnerProcedure
    .input(auditPageSchema)
    .query(({ ctx, input }) => listAuditEntries(ctx.tenancy, { instance: true }, input)),

  instanceActors: instanceOwnerProcedure.query(({ ctx }) => auditActors(ctx.tenancy, { instance: true })),
});

import { auditPageSchema } from "@/lib/schemas/audit";
import { auditActors, listAuditEntries } from "@/server/audit/audit-log";
import { assertInstanceOwner } from "@/server/audit/audit-scope";
import { protectedProcedure, router, teamProcedure } from "../trpc";

const instanceOwnerProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  await assertInstanceOwner(ctx.tenancy, ctx.user.id);
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

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
    .meta({ counts: "heavyRead" })
    .input(auditPageSchema)
    .query(({ ctx, input, signal }) => listAuditEntries(ctx.tenancy, { teamId: ctx.team.id }, input, signal)),

  actors: teamProcedure("audit.read")
    .meta({ counts: "heavyRead" })
    .query(({ ctx }) => auditActors(ctx.tenancy, { teamId: ctx.team.id })),

  instanceList: instanceOwnerProcedure
    .meta({ counts: "heavyRead" })
    .input(auditPageSchema)
    .query(({ ctx, input, signal }) => listAuditEntries(ctx.tenancy, { instance: true }, input, signal)),

  instanceActors: instanceOwnerProcedure
    .meta({ counts: "heavyRead" })
    .query(({ ctx }) => auditActors(ctx.tenancy, { instance: true })),
});

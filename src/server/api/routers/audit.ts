import { auditPageSchema } from "@/lib/schemas/audit";
import { auditActors } from "@/server/audit/audit-actors";
import { listAuditEntries } from "@/server/audit/audit-log";
import { instanceReadProcedure, router, teamReadProcedure } from "../trpc";

export const auditRouter = router({
  list: teamReadProcedure("audit.read")
    .input(auditPageSchema)
    .query(({ ctx, input, signal }) =>
      listAuditEntries({ db: ctx.reads, now: ctx.tenancy.now }, { teamId: ctx.team.id }, input, signal),
    ),

  actors: teamReadProcedure("audit.read").query(({ ctx }) =>
    auditActors({ db: ctx.reads, now: ctx.tenancy.now }, { teamId: ctx.team.id }),
  ),

  instanceList: instanceReadProcedure
    .input(auditPageSchema)
    .query(({ ctx, input, signal }) =>
      listAuditEntries({ db: ctx.reads, now: ctx.tenancy.now }, { instance: true }, input, signal),
    ),

  instanceActors: instanceReadProcedure.query(({ ctx }) =>
    auditActors({ db: ctx.reads, now: ctx.tenancy.now }, { instance: true }),
  ),
});

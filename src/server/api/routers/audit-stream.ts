import { auditStreamInputSchema, auditStreamResetSchema } from "@/lib/schemas/audit-stream";
import {
  auditStreamStatus,
  configureAuditStream,
  removeAuditStream,
  resetAuditStream,
} from "@/server/audit-stream/manage";
import type { AuditArchive } from "@/server/audit-stream/archive";
import type { TenancyDeps } from "@/server/tenancy/deps";
import { router, teamProcedure } from "../trpc";

/** The team's audit log streamed out: where to, how far it has gone, and its cursor. */
export const auditStreamRouter = router({
  status: teamProcedure("auditStream.read").query(({ ctx }) => auditStreamStatus(manageDeps(ctx), ctx.team.id)),

  configure: teamProcedure("auditStream.write")
    .input(auditStreamInputSchema)
    .mutation(({ ctx, input }) => configureAuditStream(manageDeps(ctx), ctx.team.id, input)),

  reset: teamProcedure("auditStream.write")
    .input(auditStreamResetSchema)
    .mutation(async ({ ctx, input }) => ({ cursor: await resetAuditStream(manageDeps(ctx), ctx.team.id, input) })),

  remove: teamProcedure("auditStream.write").mutation(({ ctx }) => removeAuditStream(manageDeps(ctx), ctx.team.id)),
});

function manageDeps(ctx: { tenancy: TenancyDeps; services: { auditArchive: AuditArchive | null } }) {
  return { ...ctx.tenancy, archive: ctx.services.auditArchive };
}

import { z } from "zod";
import { dateRangeInput } from "@/lib/schemas/date-range";
import { projectRequestLog, projectUsageReport, teamUsageReport } from "@/server/analytics/usage-report";
import { REQUEST_ID, REQUEST_ID_HINT } from "@/lib/request-id";
import { requestLogStatuses } from "@/server/errors";
import { projectProcedure, router, teamProcedure } from "../trpc";

export const usageRouter = router({
  project: projectProcedure("usage.read")
    .input(z.object({ range: dateRangeInput }))
    .query(({ ctx, input }) => projectUsageReport(ctx.services, ctx.project.id, input.range)),

  requestLog: projectProcedure("usage.read")
    .input(
      z.object({
        range: dateRangeInput,
        status: z.enum(requestLogStatuses).optional(),
        requestId: z.string().trim().toLowerCase().regex(REQUEST_ID, { error: REQUEST_ID_HINT }).optional(),
        source: z
          .string()
          .trim()
          .max(2048, { error: "Source filter: at most 2048 characters" })
          .optional()
          .transform((source) => source || undefined),
        before: z.number().int().positive().optional(),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .query(({ ctx, input }) => projectRequestLog(ctx.services, ctx.project.id, input)),

  team: teamProcedure("usage.read")
    .input(z.object({ range: dateRangeInput }))
    .query(({ ctx, input }) => teamUsageReport(ctx.services, ctx.team.id, input.range)),
});

import { z } from "zod";
import { dateRangeInput } from "@/lib/schemas/date-range";
import { projectRequestLog, projectUsageReport, teamUsageReport } from "@/server/analytics/usage-report";
import { REQUEST_ID, REQUEST_ID_HINT } from "@/lib/request-id";
import { requestLogSourceFilter } from "@/lib/schemas/request-log";
import { requestLogStatuses } from "@/server/errors";
import { projectReadProcedure, router, teamReadProcedure } from "../trpc";

export const usageRouter = router({
  project: projectReadProcedure("usage.read")
    .input(z.object({ range: dateRangeInput }))
    .query(({ ctx, input, signal }) =>
      projectUsageReport({ ...ctx.services, db: ctx.reads }, ctx.project.id, input.range, signal),
    ),

  requestLog: projectReadProcedure("usage.read")
    .input(
      z.object({
        range: dateRangeInput,
        status: z.enum(requestLogStatuses).optional(),
        requestId: z.string().trim().toLowerCase().regex(REQUEST_ID, { error: REQUEST_ID_HINT }).optional(),
        source: requestLogSourceFilter,
        before: z.number().int().positive().optional(),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .query(({ ctx, input, signal }) =>
      projectRequestLog({ ...ctx.services, db: ctx.reads }, ctx.project.id, input, signal),
    ),

  team: teamReadProcedure("usage.read")
    .input(z.object({ range: dateRangeInput }))
    .query(({ ctx, input, signal }) =>
      teamUsageReport({ ...ctx.services, db: ctx.reads }, ctx.team.id, input.range, signal),
    ),
});

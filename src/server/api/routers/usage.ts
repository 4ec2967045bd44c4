import { z } from "zod";
import { dateRangeInput } from "@/lib/schemas/date-range";
import { resolveDateRange } from "@/server/analytics/date-range";
import { requestLogPage, requestLogStats } from "@/server/analytics/request-log-stats";
import { projectUsage, teamUsage } from "@/server/analytics/usage-totals";
import { REQUEST_ID, REQUEST_ID_HINT } from "@/lib/request-id";
import { requestLogStatuses } from "@/server/errors";
import { storeShare } from "@/server/result-store/store-share";
import { projectProcedure, router, teamProcedure } from "../trpc";

export const usageRouter = router({
  project: projectProcedure("usage.read")
    .input(z.object({ range: dateRangeInput }))
    .query(async ({ ctx, input }) => {
      const { db } = ctx.services;
      const range = resolveDateRange(input.range, ctx.services.now());
      const [usage, log, metering] = await Promise.all([
        projectUsage(db, ctx.project.id, range),
        requestLogStats(db, ctx.project.id, range),
        ctx.services.freshness(),
      ]);
      return { range, ...usage, log, metering, store: storeShare(ctx.services.store, ctx.project.id) };
    }),

  requestLog: projectProcedure("usage.read")
    .input(
      z.object({
        range: dateRangeInput,
        status: z.enum(requestLogStatuses).optional(),
        requestId: z.string().trim().toLowerCase().regex(REQUEST_ID, { error: REQUEST_ID_HINT }).optional(),
        before: z.number().int().positive().optional(),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .query(({ ctx, input }) =>
      requestLogPage(ctx.services.db, ctx.project.id, resolveDateRange(input.range, ctx.services.now()), input),
    ),

  team: teamProcedure("usage.read")
    .input(z.object({ range: dateRangeInput }))
    .query(async ({ ctx, input }) => {
      const { db } = ctx.services;
      const range = resolveDateRange(input.range, ctx.services.now());
      const [usage, metering] = await Promise.all([teamUsage(db, ctx.team.id, range), ctx.services.freshness()]);
      return { range, ...usage, metering };
    }),
});

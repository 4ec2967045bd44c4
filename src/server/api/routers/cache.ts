import { purgeSchema } from "@/lib/schemas/cache";
import { storeShare } from "@/server/result-store/store-share";
import { cacheStatus, purgeResults } from "@/server/tenancy/cache-purge";
import { projectProcedure, router } from "../trpc";

export const cacheRouter = router({
  status: projectProcedure("project.read").query(async ({ ctx }) => ({
    ...(await cacheStatus(ctx.tenancy, ctx.scope)),
    store: storeShare(ctx.services.store, ctx.scope.projectId),
  })),

  /** One source (every variant of it), or the whole project without `source`. */
  purge: projectProcedure("cache.purge")
    .input(purgeSchema)
    .mutation(({ ctx, input }) =>
      purgeResults(
        {
          db: ctx.services.db,
          invalidate: ctx.services.invalidate,
          store: ctx.services.store,
          logger: ctx.services.logger,
          now: ctx.tenancy.now,
          publicNames: ctx.services.publicNames,
          audit: ctx.tenancy.audit,
        },
        ctx.scope,
        { source: input.source, actorId: ctx.user.id },
      ),
    ),
});

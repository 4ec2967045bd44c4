import { signUrlSchema } from "@/lib/schemas/developer";
import { signTestUrl } from "@/server/tenancy/developer";
import { projectProcedure, router } from "../trpc";

export const developerRouter = router({
  signUrl: projectProcedure("developer.sign")
    .input(signUrlSchema)
    .mutation(({ ctx, input }) =>
      signTestUrl(
        { ...ctx.tenancy, baseUrl: ctx.services.publicBaseUrl },
        { ...ctx.scope, projectSlug: ctx.project.slug, role: ctx.role },
        input,
      ),
    ),
});

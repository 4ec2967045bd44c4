import { z } from "zod";
import { MAX_TEST_URL_SECONDS, signTestUrl } from "@/server/tenancy/developer";
import { projectProcedure, router } from "../trpc";

export const developerRouter = router({
  signUrl: projectProcedure("developer.sign")
    .input(
      z.object({
        keyId: z.uuid(),
        operations: z.string().max(500),
        source: z.string().min(1, "Enter a source").max(2000),
        /** null: never expires (admins only). */
        expiresInSeconds: z.number().int().min(1).max(MAX_TEST_URL_SECONDS).nullable(),
      }),
    )
    .mutation(({ ctx, input }) =>
      signTestUrl(
        { ...ctx.services.tenancy, baseUrl: ctx.services.publicBaseUrl },
        { ...ctx.scope, projectSlug: ctx.project.slug, role: ctx.role },
        input,
      ),
    ),
});

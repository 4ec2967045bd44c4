import { z } from "zod";
import { projectSchema } from "@/lib/schemas/project";
import { AppError } from "@/server/errors";
import { dropProjectResults } from "@/server/tenancy/cache-purge";
import { createProject, deleteProject, listProjects, updateProject } from "@/server/tenancy/projects";
import { projectProcedure, router, teamProcedure } from "../trpc";

export const projectRouter = router({
  list: teamProcedure("project.read")
    .input(z.object({ search: z.string().max(100).optional() }))
    .query(({ ctx, input }) => listProjects(ctx.tenancy, ctx.team.id, input.search)),

  create: teamProcedure("project.create")
    .input(projectSchema.partial({ allowedSourceHosts: true, allowedRefererHosts: true }))
    .mutation(({ ctx, input }) =>
      createProject(ctx.tenancy, { teamId: ctx.team.id, ...input }, ctx.tenancy.hostPolicy),
    ),

  /** With the public base URL, for the endpoint shown on the overview and in the snippets. */
  get: projectProcedure("project.read").query(({ ctx }) => ({
    project: ctx.project,
    baseUrl: ctx.services.publicBaseUrl,
  })),

  update: projectProcedure("project.update")
    .input(projectSchema.partial())
    .mutation(({ ctx, input }) =>
      updateProject(ctx.tenancy, ctx.scope, {
        name: input.name,
        slug: input.slug,
        allowedSourceHosts: input.allowedSourceHosts,
        allowedRefererHosts: input.allowedRefererHosts,
      }),
    ),

  delete: projectProcedure("project.delete")
    .input(z.object({ confirmSlug: z.string().max(200) }))
    .mutation(async ({ ctx, input }) => {
      if (input.confirmSlug !== ctx.project.slug)
        throw new AppError("INVALID_INPUT", { message: "Type the project's slug to confirm" });
      await deleteProject(ctx.tenancy, ctx.scope);
      await dropProjectResults({ store: ctx.services.store, logger: ctx.services.logger }, ctx.scope.projectId);
    }),
});

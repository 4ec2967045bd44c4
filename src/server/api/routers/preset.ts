import { z } from "zod";
import { presetNameSchema as name, presetSchema } from "@/lib/schemas/preset";
import { QUALITY_LEVELS, type QualityLevel } from "@/server/image";
import { deletePreset, listPresets, savePreset, setDefaultQuality, setPresetsOnly } from "@/server/tenancy/presets";
import { projectProcedure, router } from "../trpc";

export const presetRouter = router({
  list: projectProcedure("project.read").query(({ ctx }) => listPresets(ctx.services.tenancy, ctx.scope)),

  save: projectProcedure("preset.write")
    .input(presetSchema)
    .mutation(({ ctx, input }) => savePreset(ctx.services.tenancy, ctx.scope, { ...input, actorId: ctx.user.id })),

  delete: projectProcedure("preset.write")
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => deletePreset(ctx.services.tenancy, ctx.scope, input.name)),

  setPresetsOnly: projectProcedure("preset.write")
    .input(z.object({ presetsOnly: z.boolean() }))
    .mutation(({ ctx, input }) => setPresetsOnly(ctx.services.tenancy, ctx.scope, input.presetsOnly)),

  setDefaultQuality: projectProcedure("preset.write")
    .input(z.object({ defaultQuality: z.enum(Object.keys(QUALITY_LEVELS) as [QualityLevel]).nullable() }))
    .mutation(({ ctx, input }) => setDefaultQuality(ctx.services.tenancy, ctx.scope, input.defaultQuality)),
});

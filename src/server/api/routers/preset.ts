import { z } from "zod";
import { presetNameSchema as name, presetSchema } from "@/lib/schemas/preset";
import { QUALITY_LEVELS, type QualityLevel } from "@/server/image";
import {
  deletePreset,
  listPresets,
  parsePresetOperations,
  savePreset,
  setDefaultQuality,
  setPresetsOnly,
} from "@/server/tenancy/presets";
import { presetsOnlyImpact } from "@/server/analytics/presets-only-impact";
import { projectProcedure, projectReadProcedure, router } from "../trpc";

export const presetRouter = router({
  list: projectProcedure("project.read").query(({ ctx }) => listPresets(ctx.tenancy, ctx.scope)),

  save: projectProcedure("preset.write")
    .input(presetSchema)
    .mutation(({ ctx, input }) => savePreset(ctx.tenancy, ctx.scope, { ...input, actorId: ctx.user.id })),

  delete: projectProcedure("preset.write")
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => deletePreset(ctx.tenancy, ctx.scope, input.name)),

  /**
   * The sample photo as these operations make it for this project (the editor's and the watermark's
   * preview). A mutation: it makes an image, and is counted with the account's changes.
   */
  preview: projectProcedure("preset.write")
    .input(presetSchema.pick({ operations: true }))
    .mutation(({ ctx, input }) =>
      ctx.services.previewOperations(ctx.project.id, parsePresetOperations(input.operations)),
    ),

  /** What turning presets-only on would refuse, from the request log (asked before it is turned on). */
  presetsOnlyImpact: projectReadProcedure("preset.write").query(({ ctx }) =>
    presetsOnlyImpact(ctx.reads, ctx.project.id),
  ),

  setPresetsOnly: projectProcedure("preset.write")
    .input(z.object({ presetsOnly: z.boolean() }))
    .mutation(({ ctx, input }) => setPresetsOnly(ctx.tenancy, ctx.scope, input.presetsOnly)),

  setDefaultQuality: projectProcedure("preset.write")
    .input(z.object({ defaultQuality: z.enum(Object.keys(QUALITY_LEVELS) as [QualityLevel]).nullable() }))
    .mutation(({ ctx, input }) => setDefaultQuality(ctx.tenancy, ctx.scope, input.defaultQuality)),
});

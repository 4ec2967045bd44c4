import { z } from "zod";
import { PRESET_NAME } from "@/server/image/operations/value-parsers";
import { deletePreset, listPresets, savePreset, setPresetsOnly } from "@/server/tenancy/presets";
import { projectProcedure, router } from "../trpc";

const name = z
  .string()
  .trim()
  .regex(PRESET_NAME, { error: "Use 1–32 lower-case letters, digits and dashes, starting with a letter or digit" });

export const presetRouter = router({
  list: projectProcedure("project.read").query(({ ctx }) => listPresets(ctx.services.tenancy, ctx.scope)),

  save: projectProcedure("preset.write")
    .input(z.object({ name, operations: z.string().max(1000, { error: "At most 1000 characters" }) }))
    .mutation(({ ctx, input }) => savePreset(ctx.services.tenancy, ctx.scope, { ...input, actorId: ctx.user.id })),

  delete: projectProcedure("preset.write")
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => deletePreset(ctx.services.tenancy, ctx.scope, input.name)),

  setPresetsOnly: projectProcedure("preset.write")
    .input(z.object({ presetsOnly: z.boolean() }))
    .mutation(({ ctx, input }) => setPresetsOnly(ctx.services.tenancy, ctx.scope, input.presetsOnly)),
});

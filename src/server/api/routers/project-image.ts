import { z } from "zod";
import { watermarkSettingsSchema } from "@/lib/schemas/watermark";
import {
  deleteProjectImage,
  getProjectImages,
  MAX_PROJECT_IMAGE_BYTES,
  projectImageKinds,
  setWatermarkSettings,
  uploadProjectImage,
} from "@/server/tenancy/project-images";
import { projectProcedure, router } from "../trpc";

const kind = z.enum(projectImageKinds);
const base64 = z
  .string()
  .max(Math.ceil(MAX_PROJECT_IMAGE_BYTES / 3) * 4, { error: `The image is over ${MAX_PROJECT_IMAGE_BYTES / 1024} KiB` })
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, { error: "Send the file as base64" });

/** The project's watermark and fallback image: anyone in the team sees them, admins change them. */
export const projectImageRouter = router({
  get: projectProcedure("project.read").query(({ ctx }) => getProjectImages(ctx.tenancy, ctx.scope)),

  upload: projectProcedure("image.write")
    .input(z.object({ kind, base64 }))
    .mutation(({ ctx, input }) =>
      uploadProjectImage(
        { ...ctx.tenancy, checkUpload: ctx.services.checkUpload, admission: ctx.services.admission },
        ctx.scope,
        { ...input, actorId: ctx.user.id },
      ),
    ),

  setWatermark: projectProcedure("image.write")
    .input(watermarkSettingsSchema)
    .mutation(({ ctx, input }) => setWatermarkSettings(ctx.tenancy, ctx.scope, input, ctx.user.id)),

  delete: projectProcedure("image.write")
    .input(z.object({ kind }))
    .mutation(({ ctx, input }) => deleteProjectImage(ctx.tenancy, ctx.scope, input.kind)),
});

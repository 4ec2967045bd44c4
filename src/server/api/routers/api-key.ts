import { z } from "zod";
import { keyLimitsSchema, rotationGraceSchema } from "@/lib/schemas/api-key";
import { keyPolicySchema } from "@/lib/schemas/key-policy";
import { nameSchema as name } from "@/lib/schemas/names";
import { envBlock } from "@/lib/snippets";
import { listApiKeys, revokeApiKey, rotateApiKey, updateApiKey } from "@/server/tenancy/api-keys";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { keyPolicyImpact } from "@/server/analytics/key-policy-impact";
import { projectProcedure, projectReadProcedure, router } from "../trpc";

const keyId = z.object({ keyId: z.uuid() });

export const apiKeyRouter = router({
  list: projectProcedure("apiKey.read").query(({ ctx }) => listApiKeys(ctx.tenancy, ctx.scope)),

  /** The secret and its `.env` block are in this answer only; the database keeps the sealed form. */
  create: projectProcedure("apiKey.create")
    .input(z.object({ name, expiresAt: z.date().nullable() }).extend(keyLimitsSchema.shape))
    .mutation(async ({ ctx, input }) => {
      const key = await createApiKey(ctx.tenancy, ctx.scope, { ...input, createdBy: ctx.user.id });
      return { ...key, env: envBlock({ baseUrl: ctx.services.publicBaseUrl, projectSlug: ctx.project.slug, ...key }) };
    }),

  update: projectProcedure("apiKey.update")
    .input(
      keyId
        .extend({
          name: name.optional(),
          expiresAt: z.date().nullable().optional(),
          policy: keyPolicySchema.nullable().optional(),
        })
        .extend(keyLimitsSchema.shape),
    )
    .mutation(({ ctx, input }) => {
      const { keyId: id, ...changes } = input;
      return updateApiKey(ctx.tenancy, ctx.scope, id, changes);
    }),

  /** What a policy being edited would have refused of the key's recent images (the dialog's preview). */
  policyImpact: projectReadProcedure("apiKey.update")
    .input(keyId.extend({ policy: keyPolicySchema }))
    .query(({ ctx, input }) => keyPolicyImpact(ctx.reads, ctx.scope, input.keyId, input.policy)),

  rotate: projectProcedure("apiKey.rotate")
    .input(keyId.extend({ graceSeconds: rotationGraceSchema }))
    .mutation(async ({ ctx, input }) => {
      const key = await rotateApiKey(ctx.tenancy, ctx.scope, input.keyId, {
        graceSeconds: input.graceSeconds,
        createdBy: ctx.user.id,
      });
      return { ...key, env: envBlock({ baseUrl: ctx.services.publicBaseUrl, projectSlug: ctx.project.slug, ...key }) };
    }),

  revoke: projectProcedure("apiKey.revoke")
    .input(keyId)
    .mutation(({ ctx, input }) => revokeApiKey(ctx.tenancy, ctx.scope, input.keyId)),
});

import { z } from "zod";
import { webhookEditSchema, webhookInputSchema } from "@/lib/schemas/webhooks";
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  redeliver,
  rotateWebhookSecret,
  sendTestDelivery,
  updateWebhook,
  webhookDeliveryLog,
} from "@/server/webhooks/manage";
import type { TenancyDeps } from "@/server/tenancy/deps";
import type { WebhookSender } from "@/server/webhooks/sender";
import { router, teamProcedure } from "../trpc";

const webhookId = z.object({ webhookId: z.uuid("Unknown webhook") });

/** A team's webhooks: what alerts and audit actions are posted where, and how each delivery went. */
export const webhooksRouter = router({
  list: teamProcedure("webhooks.read").query(({ ctx }) => listWebhooks(ctx.tenancy.db, ctx.team.id)),

  create: teamProcedure("webhooks.write")
    .input(webhookInputSchema)
    .mutation(({ ctx, input }) => createWebhook(manageDeps(ctx), ctx.team.id, input)),

  update: teamProcedure("webhooks.write")
    .input(webhookId.extend(webhookEditSchema.shape))
    .mutation(({ ctx, input }) => updateWebhook(manageDeps(ctx), ctx.team.id, input.webhookId, input)),

  delete: teamProcedure("webhooks.write")
    .input(webhookId)
    .mutation(({ ctx, input }) => deleteWebhook(manageDeps(ctx), ctx.team.id, input.webhookId)),

  rotateSecret: teamProcedure("webhooks.write")
    .input(webhookId)
    .mutation(async ({ ctx, input }) => ({
      secret: await rotateWebhookSecret(manageDeps(ctx), ctx.team.id, input.webhookId),
    })),

  deliveries: teamProcedure("webhooks.read")
    .input(webhookId)
    .query(({ ctx, input }) => webhookDeliveryLog(ctx.tenancy.db, ctx.team.id, input.webhookId)),

  sendTest: teamProcedure("webhooks.write")
    .input(webhookId)
    .mutation(({ ctx, input }) => sendTestDelivery(manageDeps(ctx), ctx.team.id, input.webhookId)),

  redeliver: teamProcedure("webhooks.write")
    .input(z.object({ deliveryId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }))
    .mutation(({ ctx, input }) => redeliver(manageDeps(ctx), ctx.team.id, input.deliveryId)),
});

function manageDeps(ctx: { tenancy: TenancyDeps; services: { webhooks: WebhookSender } }) {
  return { ...ctx.tenancy, allowLoopback: ctx.services.webhooks.allowsLoopback, sender: ctx.services.webhooks };
}

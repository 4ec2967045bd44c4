"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CopyField } from "@/components/ui/copy-field";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { toast } from "@/lib/toast-store";
import { useTRPC } from "@/lib/trpc/client";
import { WEBHOOK_FORMATS, type WebhookFormat } from "@/lib/webhook-events";
import { outcomeText, WebhookDeliveries } from "./webhook-deliveries";
import { WebhookForm } from "./webhook-form";

type Webhook = { id: string; urlShown: string; format: WebhookFormat; events: string[] };

/**
 * The team's webhooks, for its admins: where alerts and chosen audit actions are posted, each one's
 * deliveries, a test, a new signing secret. A signing secret is shown once, when it is made.
 */
export function WebhooksCard({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.webhooks.list.queryOptions({ teamSlug }));
  const [secret, setSecret] = useState<{ url: string; value: string } | null>(null);
  const [adding, setAdding] = useState(false);
  // The audit stream names one of them (or one deleted): its card reads them again too.
  const changed = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.webhooks.pathFilter()),
      queryClient.invalidateQueries(trpc.auditStream.pathFilter()),
    ]);
  const create = useMutation(trpc.webhooks.create.mutationOptions({ meta: { done: "Webhook added" } }));
  return (
    <Card title="Webhooks">
      <div className="space-y-4">
        <p className="text-sm">
          Alerts and the audit actions you choose are posted to your receiver as they happen (within a minute), signed
          so it can check they come from here (docs/webhooks.md shows how); Slack&apos;s format posts a line of text.
        </p>
        {secret ? (
          <div role="status" className="space-y-2 rounded-md border border-warning-line bg-warning-soft p-3">
            <p className="text-sm">The signing secret of {secret.url}. Copy it now: it is not shown again.</p>
            <CopyField label="Signing secret" value={secret.value} wrap />
            <Button variant="secondary" onClick={() => setSecret(null)}>
              I copied it
            </Button>
          </div>
        ) : null}
        {list.isPending ? (
          <Loading />
        ) : list.error ? (
          <ErrorMessage error={list.error} />
        ) : list.data.length === 0 ? (
          <p className="text-sm text-muted">No webhooks yet.</p>
        ) : (
          <ul aria-label="Webhooks" className="space-y-4">
            {list.data.map((hook) => (
              <WebhookItem key={hook.id} teamSlug={teamSlug} hook={hook} onSecret={setSecret} onChanged={changed} />
            ))}
          </ul>
        )}
        {adding ? (
          <WebhookForm
            submitLabel="Add the webhook"
            onSubmit={async (values) => {
              try {
                const made = await create.mutateAsync({ teamSlug, ...values });
                setSecret({ url: made.webhook.urlShown, value: made.secret });
                setAdding(false);
                await changed();
                return null;
              } catch (error) {
                return error as { message: string };
              }
            }}
          />
        ) : (
          <Button variant="secondary" onClick={() => setAdding(true)}>
            Add a webhook
          </Button>
        )}
      </div>
    </Card>
  );
}

function WebhookItem({
  teamSlug,
  hook,
  onSecret,
  onChanged,
}: {
  teamSlug: string;
  hook: Webhook;
  onSecret(secret: { url: string; value: string }): void;
  onChanged(): Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState<"log" | "edit" | null>(null);
  const test = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async (outcome) => {
        toast({ tone: outcome.delivered ? "success" : "failure", title: outcomeText(outcome) });
        setOpen("log");
        await onChanged();
      },
    }),
  );
  const update = useMutation(trpc.webhooks.update.mutationOptions({ meta: { done: "Webhook saved" } }));
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions());
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ meta: { done: "Webhook deleted" } }));
  return (
    <li className="space-y-3 rounded-md border border-line p-3">
      <div className="min-w-0">
        <p className="text-sm font-medium break-all">{hook.urlShown}</p>
        <p className="text-xs text-muted">
          {WEBHOOK_FORMATS[hook.format]} · {hook.events.length} {hook.events.length === 1 ? "event" : "events"}
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button
          variant="secondary"
          size="sm"
          pending={test.isPending}
          pendingLabel="Sending…"
          onClick={() => test.mutate({ teamSlug, webhookId: hook.id })}
        >
          Send test
        </Button>
        <Button
          variant="secondary"
          size="sm"
          aria-expanded={open === "log"}
          onClick={() => setOpen(open === "log" ? null : "log")}
        >
          Deliveries
        </Button>
        <Button
          variant="secondary"
          size="sm"
          aria-expanded={open === "edit"}
          onClick={() => setOpen(open === "edit" ? null : "edit")}
        >
          Edit
        </Button>
        <ConfirmDialog
          trigger={
            <Button variant="secondary" size="sm">
              New secret…
            </Button>
          }
          title="Make a new signing secret?"
          description="The current secret stops signing at once: the receiver must be given the new one."
          confirmLabel="Make a new secret"
          onConfirm={async () => {
            const { secret } = await rotate.mutateAsync({ teamSlug, webhookId: hook.id });
            onSecret({ url: hook.urlShown, value: secret });
          }}
        />
        <ConfirmDialog
          trigger={
            <Button variant="danger" size="sm">
              Delete…
            </Button>
          }
          title="Delete this webhook?"
          description={`Nothing more is sent to ${hook.urlShown}, and its deliveries are deleted with it.`}
          confirmLabel="Delete the webhook"
          onConfirm={async () => {
            await remove.mutateAsync({ teamSlug, webhookId: hook.id });
            await onChanged();
          }}
        />
      </div>
      <ErrorMessage error={test.error} />
      {open === "log" ? <WebhookDeliveries teamSlug={teamSlug} webhookId={hook.id} /> : null}
      {open === "edit" ? (
        <WebhookForm
          initial={{ format: hook.format, events: hook.events }}
          submitLabel="Save the webhook"
          onSubmit={async (values) => {
            try {
              await update.mutateAsync({
                teamSlug,
                webhookId: hook.id,
                format: values.format,
                events: values.events,
                ...(values.url ? { url: values.url } : {}),
              });
              setOpen(null);
              await onChanged();
              return null;
            } catch (error) {
              return error as { message: string };
            }
          }}
        />
      ) : null}
    </li>
  );
}

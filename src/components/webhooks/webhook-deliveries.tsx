"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { ErrorMessage, Loading } from "@/components/ui/feedback";
import { When } from "@/components/ui/when";
import { toast } from "@/lib/toast-store";
import { useTRPC } from "@/lib/trpc/client";

type Outcome = { delivered: boolean; status: number | null; error: string | null };

/** What an attempt came to, in words: the receiver's status, or why there was none. */
export const outcomeText = (outcome: Outcome) =>
  outcome.delivered ? `Delivered (${outcome.status})` : `Not delivered: ${outcome.error ?? "no answer"}`;

/**
 * A webhook's latest deliveries, newest first: what was sent, how it went (the receiver's status or
 * why there was none), when it is tried next; any of them can be sent again.
 */
export function WebhookDeliveries({ teamSlug, webhookId }: { teamSlug: string; webhookId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const log = useQuery(trpc.webhooks.deliveries.queryOptions({ teamSlug, webhookId }));
  const refresh = () => queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter());
  const redeliver = useMutation(
    trpc.webhooks.redeliver.mutationOptions({
      onSuccess: (outcome) => toast({ tone: outcome.delivered ? "success" : "failure", title: outcomeText(outcome) }),
      onSettled: refresh,
    }),
  );
  if (log.isPending) return <Loading label="Loading deliveries…" />;
  if (log.error) return <ErrorMessage error={log.error} />;
  if (log.data.length === 0)
    return <p className="text-sm text-muted">Nothing sent yet: a test, an alert or a chosen action will show here.</p>;
  return (
    <div className="space-y-2">
      <ErrorMessage error={redeliver.error} />
      <ul aria-label="Deliveries" className="divide-y divide-line rounded-md border border-line">
        {log.data.map((delivery) => (
          <li key={delivery.id} className="flex flex-wrap items-start justify-between gap-2 p-3 text-sm">
            <div className="min-w-0 space-y-0.5">
              <p className="font-medium break-all">{delivery.eventType}</p>
              <p className="text-xs text-muted">
                <When at={delivery.createdAt} /> · {attemptsText(delivery.attempts)}
              </p>
              <p
                className={
                  delivery.status === "delivered" ? "text-ok" : delivery.status === "failed" ? "text-danger" : ""
                }
              >
                {statusText(delivery)}
              </p>
            </div>
            <Button
              variant="secondary"
              size="sm"
              pending={redeliver.isPending && redeliver.variables?.deliveryId === delivery.id}
              pendingLabel="Sending…"
              aria-label={`Redeliver ${delivery.eventType} #${delivery.id}`}
              onClick={() => redeliver.mutate({ teamSlug, deliveryId: delivery.id })}
            >
              Redeliver
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}

const attemptsText = (attempts: number) => (attempts === 1 ? "1 attempt" : `${attempts} attempts`);

function statusText(delivery: {
  status: string;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: Date | string | null;
}) {
  if (delivery.status === "delivered") return `Delivered: the receiver answered ${delivery.responseStatus}`;
  if (delivery.status === "sending") return "Sending…";
  const why = delivery.error ?? "not sent yet";
  if (delivery.status === "failed") return `Failed, no more retries: ${why}`;
  return delivery.nextAttemptAt ? (
    <>
      {why}; next try <When at={delivery.nextAttemptAt} />
    </>
  ) : (
    why
  );
}

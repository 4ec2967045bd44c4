"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { When } from "@/components/ui/when";
import { WAITING_COUNTED } from "@/lib/schemas/audit-stream";
import { useTRPC } from "@/lib/trpc/client";
import { AuditStreamDestinationForm } from "./destination-form";
import { AuditStreamResetForm } from "./reset-form";
import type { AuditStreamStatus } from "./status";

type Status = AuditStreamStatus;

/**
 * The team's audit log streamed out, for its admins: where it goes, how far it has gone, what failed,
 * and its cursor, which an admin moves back to send entries again or forward to skip them.
 */
export function AuditStreamCard({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.auditStream.status.queryOptions({ teamSlug }));
  const webhooks = useQuery(trpc.webhooks.list.queryOptions({ teamSlug }));
  const changed = () => queryClient.invalidateQueries(trpc.auditStream.pathFilter());
  const remove = useMutation(trpc.auditStream.remove.mutationOptions({ meta: { done: "Audit streaming stopped" } }));
  return (
    <Card title="Audit streaming">
      <div className="space-y-4">
        <p className="text-sm">
          The team&apos;s audit log, one JSON entry per line (NDJSON), oldest first, posted to a signed webhook or
          written to the bucket at each alert check (every minute on a self-hosted server, as its cron runs on Vercel).
          At least once: a receiver drops an entry whose id it has seen (docs/webhooks.md).
        </p>
        {status.isPending || webhooks.isPending ? (
          <Loading />
        ) : status.error || webhooks.error ? (
          <ErrorMessage error={status.error ?? webhooks.error} />
        ) : (
          <>
            {status.data.stream ? <StreamState stream={status.data.stream} bucket={status.data.bucket} /> : null}
            <AuditStreamDestinationForm
              // Drawn anew when the stream or the webhooks change: its choice starts from what is true now.
              key={`${status.data.stream?.destination}:${status.data.stream?.webhookId}:${webhooks.dataUpdatedAt}`}
              teamSlug={teamSlug}
              current={status.data.stream}
              bucket={status.data.bucket}
              webhooks={webhooks.data.filter((hook) => hook.format === "standard")}
              onSaved={changed}
            />
            {status.data.stream ? (
              <>
                <AuditStreamResetForm teamSlug={teamSlug} onMoved={changed} />
                <ConfirmDialog
                  trigger={<Button variant="danger">Stop streaming…</Button>}
                  title="Stop streaming the audit log?"
                  description="Nothing more is sent; what was sent stays where it went. Starting again starts from then."
                  confirmLabel="Stop streaming"
                  onConfirm={async () => {
                    await remove.mutateAsync({ teamSlug });
                    await changed();
                  }}
                />
              </>
            ) : null}
          </>
        )}
      </div>
    </Card>
  );
}

function StreamState({ stream, bucket }: { stream: NonNullable<Status["stream"]>; bucket: Status["bucket"] }) {
  const where =
    stream.destination === "bucket"
      ? `the bucket (${bucket?.shown ?? "none on this instance"})`
      : stream.webhookShown
        ? `the webhook ${stream.webhookShown}`
        : "a webhook that was deleted: choose another below";
  return (
    <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
      <dt className="text-muted">Sent to</dt>
      <dd className="break-all">{where}</dd>
      <dt className="text-muted">Sent through</dt>
      <dd>
        {stream.cursorAt ? (
          <>
            entry {stream.cursor}, written <When at={stream.cursorAt} />
          </>
        ) : stream.cursor === 0 ? (
          "nothing yet: every kept entry is waiting"
        ) : (
          `entry ${stream.cursor}`
        )}
      </dd>
      <dt className="text-muted">Waiting</dt>
      <dd>
        {stream.waiting === 0
          ? "nothing: up to date"
          : stream.waiting > WAITING_COUNTED
            ? `${WAITING_COUNTED.toLocaleString("en")} entries or more`
            : `${stream.waiting.toLocaleString("en")} ${stream.waiting === 1 ? "entry" : "entries"}`}
      </dd>
      {stream.lastSentAt ? (
        <>
          <dt className="text-muted">Last sent</dt>
          <dd>
            <When at={stream.lastSentAt} />
          </dd>
        </>
      ) : null}
      {stream.lastError ? (
        <>
          <dt className="text-muted">Failing</dt>
          <dd className="text-danger">
            {stream.lastError}
            {stream.failures > 0 ? (
              <>
                {" "}
                ({stream.failures} {stream.failures === 1 ? "try" : "tries"} in a row; next{" "}
                <When at={stream.nextAttemptAt} />)
              </>
            ) : null}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

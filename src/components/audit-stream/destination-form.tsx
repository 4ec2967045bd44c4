"use client";

import { useMutation } from "@tanstack/react-query";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Select } from "@/components/ui/select";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { useTRPC } from "@/lib/trpc/client";
import type { AuditStreamStatus } from "./status";

const formSchema = z.object({
  target: z.string().min(1, "Choose where the log is sent"),
  startFrom: z.enum(["now", "oldest"]),
});

/**
 * Where the log goes: one of the team's signed JSON webhooks (Slack's format cannot carry it), or the
 * bucket when the instance keeps results. A new stream also says where it starts.
 */
export function AuditStreamDestinationForm({
  teamSlug,
  current,
  bucket,
  webhooks,
  onSaved,
}: {
  teamSlug: string;
  current: AuditStreamStatus["stream"];
  bucket: AuditStreamStatus["bucket"];
  webhooks: { id: string; urlShown: string }[];
  onSaved(): Promise<unknown>;
}) {
  const trpc = useTRPC();
  // A webhook no longer offered (deleted, or now in Slack's format) is not chosen: the admin picks anew.
  const offered = webhooks.some((hook) => hook.id === current?.webhookId);
  const chosen =
    current?.destination === "bucket" && bucket ? "bucket" : offered ? `webhook:${current!.webhookId}` : "";
  const form = useZodForm(formSchema, { target: chosen, startFrom: "now" });
  const configure = useMutation(
    trpc.auditStream.configure.mutationOptions({
      meta: { done: current ? "Audit stream saved" : "Audit streaming started" },
      onError: (error) => showRefusal(form, error),
    }),
  );
  const submit = form.handleSubmit(async ({ target, startFrom }) => {
    const [destination, webhookId] = target.split(":") as ["webhook" | "bucket", string | undefined];
    await configure.mutateAsync({ teamSlug, destination, webhookId, startFrom }).catch(() => undefined);
    await onSaved();
  });
  const none = webhooks.length === 0 && !bucket;
  return (
    <form onSubmit={submit} className="space-y-3" noValidate>
      <label className="block space-y-1 text-sm">
        <span className="font-medium">Send the log to</span>
        <Select className="block w-full" {...fieldOf(form, "target")}>
          <option value="">Choose…</option>
          {webhooks.map((hook) => (
            <option key={hook.id} value={`webhook:${hook.id}`}>
              Webhook {hook.urlShown}
            </option>
          ))}
          {bucket ? <option value="bucket">The bucket ({bucket.shown})</option> : null}
        </Select>
      </label>
      {none ? (
        <p className="text-sm text-muted">
          Add a webhook in the JSON format above first{bucket ? "" : " (this instance keeps no results: no bucket)"}.
        </p>
      ) : null}
      {current ? null : (
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">Start with</legend>
          <label className="flex items-start gap-2 text-sm">
            <input type="radio" value="now" className="mt-0.5 size-4" {...form.register("startFrom")} />
            The entries written from now on
          </label>
          <label className="flex items-start gap-2 text-sm">
            <input type="radio" value="oldest" className="mt-0.5 size-4" {...form.register("startFrom")} />
            Every entry kept, then the new ones
          </label>
        </fieldset>
      )}
      <ErrorMessage error={formLevelError(form)} />
      <Button type="submit" pending={form.formState.isSubmitting} pendingLabel="Saving…" disabled={none}>
        {current ? "Save the destination" : "Start streaming"}
      </Button>
    </form>
  );
}

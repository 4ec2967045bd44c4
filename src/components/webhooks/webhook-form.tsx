"use client";

import { z } from "zod";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { auditActions } from "@/lib/audit-actions";
import { fieldOf, formLevelError, useZodForm, type Refusal, showRefusal } from "@/lib/forms";
import { webhookUrlSchema } from "@/lib/schemas/webhooks";
import { WEBHOOK_FORMATS, webhookAlertEvents, webhookAuditActions, type WebhookFormat } from "@/lib/webhook-events";

const formSchema = (urlRequired: boolean) =>
  z.object({
    url: urlRequired ? webhookUrlSchema : z.union([z.literal(""), webhookUrlSchema]),
    format: z.enum(Object.keys(WEBHOOK_FORMATS) as [WebhookFormat, ...WebhookFormat[]]),
    events: z.array(z.string()).min(1, "Choose at least one alert or action"),
  });

export interface WebhookFormValues {
  url: string;
  format: WebhookFormat;
  events: string[];
}

/**
 * A webhook's address, format and events: the team's alerts, and its audit actions in a fold (there
 * are dozens). Editing leaves the address as it is unless a new one is typed: the old one is never
 * shown whole (a Slack URL is its own password).
 */
export function WebhookForm({
  initial,
  submitLabel,
  onSubmit,
}: {
  /** Absent: a new webhook (the address is required). */
  initial?: { format: WebhookFormat; events: string[] };
  submitLabel: string;
  onSubmit(values: WebhookFormValues): Promise<Refusal | null>;
}) {
  const form = useZodForm(formSchema(!initial), {
    url: "",
    format: initial?.format ?? "standard",
    events: initial?.events ?? [],
  });
  const chosen = form.watch("events") ?? [];
  const auditChosen = chosen.filter((name) => name.startsWith("audit.")).length;
  const submit = form.handleSubmit(async (values) => {
    const refusal = await onSubmit(values);
    if (refusal) showRefusal(form, refusal);
  });
  const events = form.formState.errors.events?.message;
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <Field
        label={initial ? "New receiver URL (empty: keep the current one)" : "Receiver URL"}
        type="url"
        inputMode="url"
        placeholder="https://example.com/hooks/optstuff"
        {...fieldOf(form, "url")}
      />
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Format</legend>
        {(Object.entries(WEBHOOK_FORMATS) as [WebhookFormat, string][]).map(([value, label]) => (
          <label key={value} className="flex items-start gap-2 text-sm">
            <input type="radio" value={value} className="mt-0.5 size-4" {...form.register("format")} />
            {label}
          </label>
        ))}
      </fieldset>
      <fieldset className="space-y-2" aria-describedby={events ? "webhook-events-error" : undefined}>
        <legend className="text-sm font-medium">Alerts</legend>
        {Object.entries(webhookAlertEvents).map(([name, label]) => (
          <label key={name} className="flex items-start gap-2 text-sm">
            <input type="checkbox" value={name} className="mt-0.5 size-4" {...form.register("events")} />
            {label}
          </label>
        ))}
      </fieldset>
      <details className="rounded-md border border-line p-3">
        <summary className="cursor-pointer text-sm font-medium">Audit actions ({auditChosen} chosen)</summary>
        <fieldset className="mt-3 grid gap-2 sm:grid-cols-2">
          <legend className="sr-only">Audit actions</legend>
          {webhookAuditActions.map((action) => (
            <label key={action} className="flex items-start gap-2 text-sm">
              <input type="checkbox" value={`audit.${action}`} className="mt-0.5 size-4" {...form.register("events")} />
              <span>
                Someone {auditActions[action].says} <code className="text-xs text-muted">{action}</code>
              </span>
            </label>
          ))}
        </fieldset>
      </details>
      {events ? (
        <p id="webhook-events-error" role="alert" className="text-sm text-danger">
          {events}
        </p>
      ) : null}
      <ErrorMessage error={formLevelError(form)} />
      <Button type="submit" pending={form.formState.isSubmitting} pendingLabel="Saving…">
        {submitLabel}
      </Button>
    </form>
  );
}

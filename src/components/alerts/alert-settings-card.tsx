"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { checkboxOf, fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { alertSettingsForm, alertSettingsFormSchema, type AlertSettings } from "@/lib/schemas/alerts";
import { useTRPC } from "@/lib/trpc/client";
import { MailAdminsChoice } from "./mail-admins-choice";

const CHECKS = [
  { name: "keyExpiry", label: "An API key expires within 7 days" },
  { name: "bucketCredentials", label: "A bucket refuses its credentials (tried every 15 minutes)" },
] as const;

/** The team's alerts, for its admins: what is watched, and whether it is mailed (where mail is configured). */
export function AlertSettingsCard({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.alerts.settings.queryOptions({ teamSlug }));
  return (
    <Card title="Alerts">
      {settings.isPending ? (
        <Loading />
      ) : settings.error ? (
        <ErrorMessage error={settings.error} />
      ) : (
        <AlertSettingsForm
          teamSlug={teamSlug}
          saved={settings.data.settings}
          mailConfigured={settings.data.mailConfigured}
        />
      )}
    </Card>
  );
}

function AlertSettingsForm({
  teamSlug,
  saved,
  mailConfigured,
}: {
  teamSlug: string;
  saved: AlertSettings;
  mailConfigured: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(alertSettingsFormSchema, alertSettingsForm(saved));
  const save = useMutation(
    trpc.alerts.saveSettings.mutationOptions({
      meta: { done: "Alert settings saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: async (next) => {
        form.reset(alertSettingsForm(next));
        await queryClient.invalidateQueries(trpc.alerts.pathFilter());
      },
    }),
  );
  return (
    <form
      onSubmit={form.handleSubmit((values) => save.mutate({ teamSlug, ...values }))}
      className="space-y-4"
      noValidate
      data-testid="alert-settings"
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Key day limit used (%)"
          inputMode="numeric"
          hint="Alert when a key has made this share of its transforms per day. Empty: off."
          {...fieldOf(form, "keyDayLimitPercent")}
        />
        <Field
          label="Error rate over 15 minutes (%)"
          inputMode="numeric"
          hint="Alert when this share of a project's requests failed (at least 20 requests). Empty: off."
          {...fieldOf(form, "errorRatePercent")}
        />
      </div>
      <fieldset className="space-y-2">
        <legend className="sr-only">Other alerts</legend>
        {CHECKS.map((check) => (
          <label key={check.name} className="flex items-start gap-2 text-sm">
            <input className="mt-0.5 size-4" {...checkboxOf(form, check.name)} />
            {check.label}
          </label>
        ))}
        <MailAdminsChoice mailConfigured={mailConfigured} checkbox={checkboxOf(form, "mailAdmins")} />
      </fieldset>
      <ErrorMessage error={formLevelError(form)} />
      <Button type="submit" disabled={save.isPending}>
        Save alerts
      </Button>
    </form>
  );
}

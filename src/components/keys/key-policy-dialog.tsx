"use client";

import { ShieldCheck } from "lucide-react";
import { skipToken, useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field, TextAreaField } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { checkboxOf, fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { lifetimeLabel, policyRefusals } from "@/lib/key-policy-summary";
import { keyPolicyFormSchema, keyPolicyFormValues, policyLifetimes, type KeyPolicy } from "@/lib/schemas/key-policy";
import { useTRPC } from "@/lib/trpc/client";
import { RuleImpact } from "@/components/projects/rule-impact";
import { useRefreshKeys } from "./key-actions";

/**
 * What one key may sign beyond its project's rules: a key for a partner can do less than the owner's.
 * The preview under the fields says, as they are typed, what the key will refuse.
 */
export function KeyPolicyDialog({
  teamSlug,
  projectSlug,
  apiKey,
}: {
  teamSlug: string;
  projectSlug: string;
  apiKey: { id: string; name: string; policy: KeyPolicy | null };
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKeys();
  const [open, setOpen] = useState(false);
  const form = useZodForm(keyPolicyFormSchema, keyPolicyFormValues(apiKey.policy));
  const update = useMutation(
    trpc.apiKey.update.mutationOptions({
      meta: { done: "Policy saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: async () => {
        setOpen(false);
        await refresh();
      },
    }),
  );
  const submit = form.handleSubmit((policy) => update.mutate({ teamSlug, projectSlug, keyId: apiKey.id, policy }));
  const typed = keyPolicyFormSchema.safeParse(form.watch());
  const refusals = typed.success ? policyRefusals(typed.data) : null;
  // Judged on the key's recent images when asked, for the policy as typed then; typing again hides it.
  const [checked, setChecked] = useState<KeyPolicy | null>(null);
  const current = typed.success && checked !== null && JSON.stringify(typed.data) === JSON.stringify(checked);
  const impact = useQuery(
    trpc.apiKey.policyImpact.queryOptions(
      current ? { teamSlug, projectSlug, keyId: apiKey.id, policy: checked } : skipToken,
    ),
  );
  const stored = apiKey.policy?.maxExpirySeconds;
  const lifetimes = [
    ...policyLifetimes,
    ...(stored && !policyLifetimes.some((choice) => choice.seconds === stored)
      ? [{ seconds: stored, label: lifetimeLabel(stored) }]
      : []),
  ];
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (next) form.reset(keyPolicyFormValues(apiKey.policy));
        setChecked(null);
        update.reset();
        setOpen(next);
      }}
      title={`Policy of ${apiKey.name}`}
      trigger={
        <Button variant="ghost" size="sm" icon={ShieldCheck}>
          Policy
        </Button>
      }
    >
      <form onSubmit={submit} className="space-y-4" noValidate>
        <label className="flex items-center gap-2 text-sm">
          <input {...checkboxOf(form, "presetsOnly")} />
          Presets only: its URLs are one preset (pr_…) and nothing else
        </label>
        {form.watch("presetsOnly") ? null : (
          <Field
            label="Operations it may sign"
            hint="Token names, such as w, h, f, q, pr. Empty: every operation the project allows; _ alone: none (the original only)."
            {...fieldOf(form, "operations")}
          />
        )}
        <Field
          label="Presets it may sign"
          hint="Preset names. Empty: any of the project's presets."
          {...fieldOf(form, "presets")}
        />
        <label className="block text-sm">
          <span className="block font-medium">Longest URL lifetime</span>
          <Select className="mt-1" {...fieldOf(form, "maxExpirySeconds")}>
            <option value="">No limit (exp optional)</option>
            {lifetimes.map((choice) => (
              <option key={choice.seconds} value={String(choice.seconds)}>
                {choice.label}: URLs must carry exp, at most that far ahead
              </option>
            ))}
          </Select>
        </label>
        <TextAreaField
          label="Pages it may be embedded in"
          rows={3}
          hint="One host per line (example.com, *.example.com). Empty: the project's referer list alone decides."
          {...fieldOf(form, "referers")}
        />
        <div className="rounded-md border border-line p-3 text-sm" aria-live="polite" data-testid="policy-preview">
          {refusals === null ? (
            <p className="text-muted">Correct the fields above to see what the key will refuse.</p>
          ) : refusals.length === 0 ? (
            <p className="text-muted">This key signs everything the project allows.</p>
          ) : (
            <>
              <p className="font-medium">This key will refuse, with 403:</p>
              <ul className="mt-1 list-disc pl-5">
                {refusals.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </>
          )}
          {refusals && refusals.length > 0 ? (
            <div className="mt-3 space-y-2" role="status">
              {!current ? (
                <Button type="button" variant="secondary" size="sm" onClick={() => setChecked(typed.data!)}>
                  Check against this key&apos;s recent images
                </Button>
              ) : impact.isPending ? (
                <p className="text-muted">Counting the recent images it would refuse…</p>
              ) : impact.error ? (
                <ErrorMessage error={impact.error} />
              ) : (
                <>
                  <RuleImpact {...impact.data} testId="key-policy-impact" />
                  <p className="text-xs text-subtle">
                    Judged on operations and presets: the request log keeps neither exp nor the Referer.
                  </p>
                </>
              )}
            </div>
          ) : null}
        </div>
        <ErrorMessage error={formLevelError(form)} />
        <DialogActions onCancel={() => setOpen(false)} submitLabel="Save policy" pending={update.isPending} />
      </form>
    </Dialog>
  );
}

"use client";

import { Ban, Pencil } from "lucide-react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { editedExpiry, initialExpiry } from "./expiry";
import { ExpiryField } from "./expiry-field";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { keyFormSchema } from "@/lib/schemas/api-key";
import { spendCapFormValues, type SpendCap } from "@/lib/schemas/spend-cap";
import { SpendCapFields } from "./spend-cap-fields";
import { useTRPC } from "@/lib/trpc/client";

export interface KeyRef {
  id: string;
  name: string;
  expiresAt: Date | null;
  rateLimitPerMinute: number | null;
  rateLimitPerDay: number | null;
  spendCap: SpendCap | null;
}

export function useRefreshKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.apiKey.list.queryKey() });
}

/** The limits of a key that has none of its own, as the server applies them. */
export interface DefaultKeyLimits {
  perMinute: number;
  perDay: number;
}

const formValuesOf = (apiKey: KeyRef) => ({
  name: apiKey.name,
  ...initialExpiry(apiKey.expiresAt),
  rateLimitPerMinute: apiKey.rateLimitPerMinute?.toString() ?? "",
  rateLimitPerDay: apiKey.rateLimitPerDay?.toString() ?? "",
  spendCap: spendCapFormValues(apiKey.spendCap),
});

export function EditKeyDialog({
  teamSlug,
  projectSlug,
  apiKey,
  defaultLimits,
}: {
  teamSlug: string;
  projectSlug: string;
  apiKey: KeyRef;
  defaultLimits: DefaultKeyLimits;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKeys();
  const [open, setOpen] = useState(false);
  const form = useZodForm(keyFormSchema, formValuesOf(apiKey));
  const update = useMutation(
    trpc.apiKey.update.mutationOptions({
      meta: { done: "Key saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: async () => {
        setOpen(false);
        await refresh();
      },
    }),
  );
  const submit = form.handleSubmit(({ choice, date, ...values }) =>
    update.mutate({
      teamSlug,
      projectSlug,
      keyId: apiKey.id,
      ...values,
      // Only when changed: the day shown would come back as 23:59:59 and move the expiry.
      expiresAt: editedExpiry(apiKey.expiresAt, { choice, date }),
    }),
  );
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        // Opened again: the key as it is now (a saved "in 30 days" is a date by then, not 30 more days).
        if (next) form.reset(formValuesOf(apiKey));
        update.reset();
        setOpen(next);
      }}
      title={`Edit ${apiKey.name}`}
      trigger={
        <Button variant="ghost" size="sm" icon={Pencil}>
          Edit
        </Button>
      }
    >
      <form onSubmit={submit} className="space-y-4" noValidate>
        <Field label="Key name" required {...fieldOf(form, "name")} />
        <ExpiryField
          choice={fieldOf(form, "choice")}
          date={fieldOf(form, "date")}
          custom={form.watch("choice") === "custom"}
        />
        <div className="grid gap-3 sm:grid-cols-2">
          <Field
            label="Transforms per minute"
            inputMode="numeric"
            hint={`Empty: ${defaultLimits.perMinute.toLocaleString("en")}`}
            {...fieldOf(form, "rateLimitPerMinute")}
          />
          <Field
            label="Transforms per day"
            inputMode="numeric"
            hint={`Empty: ${defaultLimits.perDay.toLocaleString("en")}`}
            {...fieldOf(form, "rateLimitPerDay")}
          />
        </div>
        <p className="text-xs text-subtle">
          A transform is an image this key asks for that is not in the server&apos;s cache yet. Cache hits, 304s and
          repeated URLs cost nothing, so visitors replaying your URLs cannot use up the key; each visitor&apos;s address
          also has a limit of its own.
        </p>
        <SpendCapFields form={form} />
        <ErrorMessage error={formLevelError(form)} />
        <DialogActions onCancel={() => setOpen(false)} submitLabel="Save" pending={update.isPending} />
      </form>
    </Dialog>
  );
}

export function RevokeKeyButton({
  teamSlug,
  projectSlug,
  apiKey,
}: {
  teamSlug: string;
  projectSlug: string;
  apiKey: KeyRef;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKeys();
  const revoke = useMutation(trpc.apiKey.revoke.mutationOptions({ onSuccess: refresh, meta: { done: "Key revoked" } }));
  return (
    <ConfirmDialog
      trigger={
        <Button variant="danger" size="sm" icon={Ban}>
          Revoke
        </Button>
      }
      title={`Revoke ${apiKey.name}?`}
      description="Every URL signed with this key stops working immediately. A revoked key cannot be restored or rotated."
      confirmLabel="Revoke key"
      onConfirm={() => revoke.mutateAsync({ teamSlug, projectSlug, keyId: apiKey.id })}
    />
  );
}

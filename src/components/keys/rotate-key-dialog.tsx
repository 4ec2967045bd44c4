"use client";

import { RotateCw } from "lucide-react";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Select } from "@/components/ui/select";
import { When } from "@/components/ui/when";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { rotateFormSchema } from "@/lib/schemas/api-key";
import { useTRPC } from "@/lib/trpc/client";
import { useRefreshKeys, type KeyRef } from "./key-actions";
import { SecretOnce } from "./secret-once";
import { useSecretShownOnce } from "./use-secret-shown-once";

const graceChoices = [
  { seconds: 0, label: "None: the old key stops now" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours" },
  { seconds: 7 * 86_400, label: "7 days" },
];

/** A new key pair, shown once; the old pair keeps working for the chosen grace period. */
export function RotateKeyDialog({
  teamSlug,
  projectSlug,
  apiKey,
  offered,
}: {
  teamSlug: string;
  projectSlug: string;
  apiKey: KeyRef;
  /** Whether the key can be rotated now; the dialog stays mounted after, holding the new secret. */
  offered: boolean;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKeys();
  const [open, setOpen] = useState(false);
  const form = useZodForm(rotateFormSchema, { graceSeconds: "86400" });
  const rotate = useMutation(
    trpc.apiKey.rotate.mutationOptions({
      meta: { done: "Key rotated" },
      onError: (error) => showRefusal(form, error),
      onSuccess: refresh,
    }),
  );
  const secret = useSecretShownOnce(rotate.data !== undefined, rotate.isPending);
  function onOpenChange(next: boolean) {
    // Closing while the rotation runs would drop its answer (the old pair may already be gone), and the
    // new secret is shown once: the dialog stays until it was copied or the admin says it is stored.
    if (secret.holdsClose(next)) return;
    setOpen(next);
    if (next) return;
    rotate.reset();
    form.reset();
    secret.reset();
  }
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={`Rotate ${apiKey.name}`}
      dismissible={secret.dismissible}
      description="A new key pair replaces this one. During the grace period URLs signed with the old pair keep working."
      trigger={
        offered ? (
          <Button variant="ghost" size="sm" icon={RotateCw}>
            Rotate
          </Button>
        ) : null
      }
    >
      {rotate.data ? (
        <div className="space-y-4">
          <p className="text-sm">
            The old pair works until <When at={rotate.data.oldKeyExpiresAt} />.
          </p>
          <SecretOnce
            publicKey={rotate.data.publicKey}
            secretKey={rotate.data.secretKey}
            env={rotate.data.env}
            saved={secret.saved}
            onSavedChange={secret.setSaved}
            onDone={() => onOpenChange(false)}
          />
        </div>
      ) : (
        <form
          onSubmit={form.handleSubmit((values) =>
            rotate.mutate({ teamSlug, projectSlug, keyId: apiKey.id, ...values }),
          )}
          className="space-y-4"
          noValidate
        >
          <label className="block text-sm">
            <span className="block font-medium">Grace period</span>
            <Select className="mt-1 w-full" {...fieldOf(form, "graceSeconds")}>
              {graceChoices.map((c) => (
                <option key={c.seconds} value={c.seconds}>
                  {c.label}
                </option>
              ))}
            </Select>
          </label>
          <ErrorMessage error={formLevelError(form)} />
          <DialogActions
            onCancel={() => onOpenChange(false)}
            submitLabel="Rotate key"
            pending={rotate.isPending}
            pendingLabel="Rotating…"
          />
        </form>
      )}
    </Dialog>
  );
}

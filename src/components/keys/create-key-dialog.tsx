"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { newKeyFormSchema } from "@/lib/schemas/api-key";
import { useTRPC } from "@/lib/trpc/client";
import { expiryFrom } from "./expiry";
import { ExpiryField } from "./expiry-field";
import { SecretOnce } from "./secret-once";
import { useSecretShownOnce } from "./use-secret-shown-once";

const EMPTY = { name: "", choice: "never", date: "" } as const;

export function CreateKeyDialog({
  teamSlug,
  projectSlug,
  open,
  setOpen,
}: {
  teamSlug: string;
  projectSlug: string;
  /**
   * Held by the page, so another button (an empty list's) opens the same dialog: a dialog inside the
   * empty list would vanish with it when the new key fills the list, its secret unseen.
   */
  open: boolean;
  setOpen(open: boolean): void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(newKeyFormSchema, EMPTY);
  const create = useMutation(
    trpc.apiKey.create.mutationOptions({
      meta: { done: "Key created" },
      onError: (error) => showRefusal(form, error),
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.apiKey.list.queryKey() }),
    }),
  );

  const secret = useSecretShownOnce(create.data !== undefined, create.isPending);
  function onOpenChange(next: boolean) {
    // The secret is shown once: the dialog stays until it was copied or the admin says it is stored.
    if (secret.holdsClose(next)) return;
    setOpen(next);
    if (!next) {
      create.reset();
      form.reset(EMPTY);
      secret.reset();
    }
  }

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={create.data ? "Key created" : "New API key"}
      dismissible={secret.dismissible}
      trigger={<Button icon={Plus}>New key</Button>}
    >
      {create.data ? (
        <div className="space-y-4">
          <SecretOnce
            publicKey={create.data.publicKey}
            secretKey={create.data.secretKey}
            env={create.data.env}
            saved={secret.saved}
            onSavedChange={secret.setSaved}
            onDone={() => onOpenChange(false)}
          />
        </div>
      ) : (
        <form
          onSubmit={form.handleSubmit(({ name, choice, date }) =>
            create.mutate({ teamSlug, projectSlug, name, expiresAt: expiryFrom(choice, date) }),
          )}
          className="space-y-4"
          noValidate
        >
          <Field
            label="Key name"
            required
            maxLength={80}
            hint="Where the key is used, e.g. production web."
            {...fieldOf(form, "name")}
          />
          <ExpiryField
            choice={fieldOf(form, "choice")}
            date={fieldOf(form, "date")}
            custom={form.watch("choice") === "custom"}
          />
          <ErrorMessage error={formLevelError(form)} />
          <DialogActions
            onCancel={() => onOpenChange(false)}
            submitLabel="Create key"
            disabled={!form.watch("name")}
            pending={create.isPending}
            pendingLabel="Creating…"
          />
        </form>
      )}
    </Dialog>
  );
}

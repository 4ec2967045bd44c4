"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { expiryFrom, type ExpiryChoice } from "./expiry";
import { ExpiryField } from "./expiry-field";
import { SecretOnce } from "./secret-once";
import { formErrors } from "@/lib/form-errors";

export function CreateKeyDialog({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [choice, setChoice] = useState<ExpiryChoice>("never");
  const [date, setDate] = useState("");
  const create = useMutation(
    trpc.apiKey.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.apiKey.list.queryKey() }),
    }),
  );

  const errors = formErrors(create.error, ["name"]);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ teamSlug, projectSlug, name, expiresAt: expiryFrom(choice, date) });
  }

  function onOpenChange(next: boolean) {
    setOpen(next);
    if (!next) {
      create.reset();
      setName("");
      setChoice("never");
    }
  }

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={create.data ? "Key created" : "New API key"}
      trigger={<Button>New key</Button>}
    >
      {create.data ? (
        <div className="space-y-4">
          <SecretOnce publicKey={create.data.publicKey} secretKey={create.data.secretKey} env={create.data.env} />
          <div className="flex justify-end">
            <Button onClick={() => onOpenChange(false)}>Done</Button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit} className="space-y-4" noValidate>
          <Field
            label="Key name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.field.name}
            required
            maxLength={80}
            hint="Where the key is used, e.g. production web."
          />
          <ExpiryField choice={choice} onChoice={setChoice} date={date} onDate={setDate} />
          <ErrorMessage error={errors.form} />
          <DialogActions
            onCancel={() => onOpenChange(false)}
            submitLabel="Create key"
            disabled={create.isPending || !name}
          />
        </form>
      )}
    </Dialog>
  );
}

"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { authClient } from "@/lib/auth-client";
import { authErrorMessage } from "@/lib/auth-errors";
import { fieldOf, formLevelError, useZodForm } from "@/lib/forms";
import { addPasskey } from "@/lib/passkey-registration";
import { NAME_MAX_LENGTH } from "@/lib/schemas/names";
import { useTRPC } from "@/lib/trpc/client";

const addSchema = z.object({
  name: z.string().trim().max(NAME_MAX_LENGTH, `A name has at most ${NAME_MAX_LENGTH} characters`),
  password: z.string().min(1, "Enter your password").max(256),
});

/** The account's passkeys: each signs in on its own, with the device's PIN or fingerprint. */
export function PasskeysCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const security = useQuery(trpc.account.security.queryOptions());
  const changed = () => queryClient.invalidateQueries({ queryKey: trpc.account.pathKey() });
  const form = useZodForm(addSchema, { name: "", password: "" });
  const remove = useMutation({
    mutationFn: async (id: string) => {
      const result = await authClient.passkey.deletePasskey({ id });
      if (result.error) throw new Error(authErrorMessage(result.error));
    },
    onSuccess: changed,
  });
  if (security.isPending) return <Loading />;
  if (security.error) return <ErrorMessage error={security.error} />;
  const { passkeys, passkeyLimit, password } = security.data;
  const submit = form.handleSubmit(async (values) => {
    const result = await addPasskey(values);
    if (result.error) form.setError("root.server", { type: "server", message: authErrorMessage(result.error) });
    else {
      form.reset({ name: "", password: "" });
      await changed();
    }
  });

  return (
    <Card title="Passkeys">
      <div className="space-y-4">
        <p className="text-sm">
          A passkey signs you in without your password or a code: your device asks for its PIN, fingerprint or face.
        </p>
        {passkeys.length === 0 ? (
          <p role="status" className="text-sm text-muted">
            No passkeys yet.
          </p>
        ) : (
          <ul aria-label="Your passkeys" className="divide-y divide-line rounded-md border border-line">
            {passkeys.map((key) => (
              <li key={key.id} className="flex flex-wrap items-center justify-between gap-2 p-3">
                <div className="min-w-0">
                  <p className="text-sm font-medium break-all">{key.name || "Unnamed passkey"}</p>
                  <p className="text-xs text-muted">
                    Added {new Date(key.createdAt).toLocaleDateString("en", { dateStyle: "medium" })}
                    {key.synced ? " · synced across your devices" : ""}
                  </p>
                </div>
                <Button
                  variant="secondary"
                  pending={remove.isPending && remove.variables === key.id}
                  pendingLabel="Removing…"
                  aria-label={`Remove ${key.name || "unnamed passkey"}`}
                  onClick={() => remove.mutate(key.id)}
                >
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
        <ErrorMessage error={remove.error} />
        {!password ? (
          <p className="text-sm text-muted">
            Adding a passkey asks for your password, and this account signs in with a provider only.
          </p>
        ) : passkeys.length >= passkeyLimit ? (
          <p className="text-sm text-muted">
            An account keeps at most {passkeyLimit} passkeys: remove one to add another.
          </p>
        ) : (
          <form onSubmit={submit} className="space-y-3" noValidate>
            <Field
              label="Name (optional)"
              hint="Which device or key it is, e.g. “Work laptop”."
              {...fieldOf(form, "name")}
            />
            <Field
              label="Your password"
              type="password"
              autoComplete="current-password"
              {...fieldOf(form, "password")}
            />
            <ErrorMessage error={formLevelError(form)} />
            <Button type="submit" pending={form.formState.isSubmitting} pendingLabel="Waiting for your device…">
              Add a passkey
            </Button>
          </form>
        )}
      </div>
    </Card>
  );
}

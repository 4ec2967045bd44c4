"use client";

import { useState } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { authClient } from "@/lib/auth-client";
import { authErrorMessage } from "@/lib/auth-errors";
import { fieldOf, formLevelError, useZodForm } from "@/lib/forms";

const codeSchema = z.object({ code: z.string().trim().min(6, "Enter the code").max(32, "That is not a code") });

/**
 * The password was right and the account has a second factor: a code from its authenticator app, or
 * one of its recovery codes, finishes the sign-in (the challenge cookie lasts ten minutes).
 */
export function SecondFactorStep({ onSignedIn }: { onSignedIn: () => void }) {
  const [recovery, setRecovery] = useState(false);
  const form = useZodForm(codeSchema, { code: "" });
  const submit = form.handleSubmit(async ({ code }) => {
    const result = recovery
      ? await authClient.twoFactor.verifyBackupCode({ code })
      : await authClient.twoFactor.verifyTotp({ code });
    if (result.error) {
      form.setError("root.server", { type: "server", message: authErrorMessage(result.error) });
      return;
    }
    onSignedIn();
  });
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <Field
        label={recovery ? "Recovery code" : "Code from your authenticator app"}
        inputMode={recovery ? "text" : "numeric"}
        autoComplete="one-time-code"
        autoFocus
        required
        {...fieldOf(form, "code")}
      />
      <ErrorMessage error={formLevelError(form)} />
      <Button type="submit" className="w-full" disabled={form.formState.isSubmitting}>
        {form.formState.isSubmitting ? "Please wait…" : "Verify and sign in"}
      </Button>
      <Button
        type="button"
        variant="ghost"
        className="w-full"
        onClick={() => {
          setRecovery(!recovery);
          form.reset({ code: "" });
        }}
      >
        {recovery ? "Use the authenticator app instead" : "Use a recovery code instead"}
      </Button>
    </form>
  );
}

"use client";

import { z } from "zod";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { authErrorMessage } from "@/lib/auth-errors";
import { fieldOf, formLevelError, useZodForm } from "@/lib/forms";

const passwordSchema = z.object({ password: z.string().max(256) });

type AuthResult = { error: { status: number; code?: string; message?: string } | null };

/**
 * A change to how the account signs in, confirmed with its password when it has one (an account that
 * only signs in with GitHub or Google has none to give). better-auth's refusal is said under the form.
 */
export function PasswordConfirm({
  password,
  label,
  variant,
  onConfirm,
}: {
  password: boolean;
  label: string;
  variant?: "primary" | "secondary" | "danger";
  onConfirm(password: string | undefined): Promise<AuthResult>;
}) {
  const form = useZodForm(
    password ? passwordSchema.extend({ password: z.string().min(1, "Enter your password").max(256) }) : passwordSchema,
    { password: "" },
  );
  const submit = form.handleSubmit(async (values) => {
    const result = await onConfirm(password ? values.password : undefined);
    if (result.error) form.setError("root.server", { type: "server", message: authErrorMessage(result.error) });
    else form.reset({ password: "" });
  });
  return (
    <form onSubmit={submit} className="space-y-3" noValidate>
      {password ? (
        <Field label="Your password" type="password" autoComplete="current-password" {...fieldOf(form, "password")} />
      ) : null}
      <ErrorMessage error={formLevelError(form)} />
      <Button type="submit" variant={variant} pending={form.formState.isSubmitting} pendingLabel="Please wait…">
        {label}
      </Button>
    </form>
  );
}

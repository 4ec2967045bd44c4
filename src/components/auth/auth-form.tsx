"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { PasskeySignIn } from "./passkey-sign-in";
import { SecondFactorStep } from "./second-factor-step";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { authClient } from "@/lib/auth-client";
import { fieldOf, formLevelError, useZodForm } from "@/lib/forms";
import { PASSWORD_MIN_LENGTH, signInSchema, signUpSchema } from "@/lib/schemas/account";
import type { SignInProvider } from "@/server/auth/providers";

const PROVIDER_LABELS: Record<SignInProvider, string> = { github: "GitHub", google: "Google", oidc: "single sign-on" };

/**
 * Sign-in and sign-up share one form; the providers list comes from the server's configuration. An
 * invitation fixes the address and goes with the sign-up (on an invite-only server the link is what
 * admits it); without the password form only the provider buttons are shown.
 */
export function AuthForm({
  mode,
  next,
  providers,
  invitation = null,
  passwordForm = true,
  providerError = null,
}: {
  mode: "sign-in" | "sign-up";
  next: string;
  providers: SignInProvider[];
  /** What a provider's refused sign-in came back with (`?error=`), said above the form. */
  providerError?: string | null;
  invitation?: { email: string; token: string } | null;
  passwordForm?: boolean;
}) {
  const router = useRouter();
  const signingUp = mode === "sign-up";
  const [challenged, setChallenged] = useState(false);
  const finish = () => {
    router.push(signingUp ? `/onboarding?next=${encodeURIComponent(next)}` : next);
    router.refresh();
  };
  const form = useZodForm(signingUp ? signUpSchema : signInSchema, {
    name: "",
    email: invitation?.email ?? "",
    password: "",
  });
  const submit = form.handleSubmit(async ({ name, email, password }) => {
    const result = signingUp
      ? await authClient.signUp.email({ email, password, name, ...(invitation && { invitation: invitation.token }) })
      : await authClient.signIn.email({ email, password });
    if (result.error) {
      const message =
        result.error.status === 429
          ? "Too many attempts. Wait a few minutes and try again."
          : (result.error.message ?? "Something went wrong");
      form.setError("root.server", { type: "server", message });
      return;
    }
    // The password was right; the account's second factor is asked for before any session exists.
    if (result.data && "twoFactorRedirect" in result.data && result.data.twoFactorRedirect) {
      setChallenged(true);
      return;
    }
    finish();
  });
  if (challenged) return <SecondFactorStep onSignedIn={finish} />;
  const busy = form.formState.isSubmitting;

  return (
    <div className="space-y-6">
      {providerError ? (
        <p role="alert" className="rounded-md border border-danger-line bg-danger-soft p-3 text-sm text-danger">
          {providerError}
        </p>
      ) : null}
      {passwordForm ? (
        <form onSubmit={submit} className="space-y-4" noValidate>
          {signingUp ? (
            <Field label="Name" autoComplete="name" required maxLength={80} {...fieldOf(form, "name")} />
          ) : null}
          <Field
            label="Email"
            type="email"
            autoComplete="email"
            required
            readOnly={invitation !== null}
            hint={invitation ? "The address the invitation was sent to." : undefined}
            {...fieldOf(form, "email")}
          />
          <Field
            label="Password"
            type="password"
            autoComplete={signingUp ? "new-password" : "current-password"}
            required
            hint={signingUp ? `At least ${PASSWORD_MIN_LENGTH} characters.` : undefined}
            {...fieldOf(form, "password")}
          />
          <ErrorMessage error={formLevelError(form)} />
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? "Please wait…" : signingUp ? "Create account" : "Sign in"}
          </Button>
        </form>
      ) : null}
      {signingUp ? null : (
        <>
          {passwordForm ? <p className="text-center text-xs text-subtle">or</p> : null}
          <PasskeySignIn onSignedIn={finish} />
        </>
      )}
      {providers.length > 0 ? (
        <div className="space-y-2">
          {passwordForm && signingUp ? <p className="text-center text-xs text-subtle">or</p> : null}
          {providers.map((provider) => (
            <Button
              key={provider}
              variant="secondary"
              className="w-full"
              onClick={() =>
                authClient.signIn.social({
                  provider,
                  callbackURL: next,
                  // A refusal (an address the provider has not verified, a domain not allowed) is said here.
                  errorCallbackURL: `/${mode}?next=${encodeURIComponent(next)}`,
                })
              }
            >
              Continue with {PROVIDER_LABELS[provider]}
            </Button>
          ))}
        </div>
      ) : null}
      <p className="text-center text-sm text-muted">
        {signingUp ? (
          <>
            Already have an account?{" "}
            <Link className="underline" href={`/sign-in?next=${encodeURIComponent(next)}`}>
              Sign in
            </Link>
          </>
        ) : (
          <>
            New here?{" "}
            <Link className="underline" href={`/sign-up?next=${encodeURIComponent(next)}`}>
              Create an account
            </Link>
          </>
        )}
      </p>
    </div>
  );
}

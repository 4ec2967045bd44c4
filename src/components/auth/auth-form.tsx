"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { authClient } from "@/lib/auth-client";

const PASSWORD_MIN = 10;

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
}: {
  mode: "sign-in" | "sign-up";
  next: string;
  providers: Array<"github" | "google">;
  invitation?: { email: string; token: string } | null;
  passwordForm?: boolean;
}) {
  const router = useRouter();
  const [error, setError] = useState<{ message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [password, setPassword] = useState("");
  const tooShort = mode === "sign-up" && password.length > 0 && password.length < PASSWORD_MIN;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email"));
    setBusy(true);
    setError(null);
    const result =
      mode === "sign-up"
        ? await authClient.signUp.email({
            email,
            password,
            name: String(form.get("name")),
            ...(invitation && { invitation: invitation.token }),
          })
        : await authClient.signIn.email({ email, password });
    setBusy(false);
    if (result.error) {
      setError({
        message:
          result.error.status === 429
            ? "Too many attempts. Wait a few minutes and try again."
            : (result.error.message ?? "Something went wrong"),
      });
      return;
    }
    router.push(mode === "sign-up" ? `/onboarding?next=${encodeURIComponent(next)}` : next);
    router.refresh();
  }

  return (
    <div className="space-y-6">
      {passwordForm ? (
        <form onSubmit={submit} className="space-y-4" noValidate>
          {mode === "sign-up" ? <Field label="Name" name="name" autoComplete="name" required maxLength={80} /> : null}
          {invitation ? (
            <Field
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              required
              readOnly
              defaultValue={invitation.email}
              hint="The address the invitation was sent to."
            />
          ) : (
            <Field label="Email" name="email" type="email" autoComplete="email" required />
          )}
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete={mode === "sign-up" ? "new-password" : "current-password"}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            hint={mode === "sign-up" ? `At least ${PASSWORD_MIN} characters.` : undefined}
            error={tooShort ? `Use at least ${PASSWORD_MIN} characters` : null}
          />
          <ErrorMessage error={error} />
          <Button type="submit" className="w-full" disabled={busy || tooShort}>
            {busy ? "Please wait…" : mode === "sign-up" ? "Create account" : "Sign in"}
          </Button>
        </form>
      ) : null}
      {providers.length > 0 ? (
        <div className="space-y-2">
          {passwordForm ? <p className="text-center text-xs text-neutral-500">or</p> : null}
          {providers.map((provider) => (
            <Button
              key={provider}
              variant="secondary"
              className="w-full"
              onClick={() => authClient.signIn.social({ provider, callbackURL: next })}
            >
              Continue with {provider === "github" ? "GitHub" : "Google"}
            </Button>
          ))}
        </div>
      ) : null}
      <p className="text-center text-sm text-neutral-600">
        {mode === "sign-up" ? (
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

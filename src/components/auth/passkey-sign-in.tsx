"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { authClient } from "@/lib/auth-client";
import { authErrorMessage } from "@/lib/auth-errors";

/**
 * Sign in with a passkey the account added on its account page: the browser asks which one (no
 * address typed), and the passkey's PIN or fingerprint is both factors, so no code follows.
 */
export function PasskeySignIn({ onSignedIn }: { onSignedIn(): void }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<{ message: string } | null>(null);
  const signIn = async () => {
    setPending(true);
    setError(null);
    const result = await authClient.signIn.passkey();
    setPending(false);
    if (result.error) setError({ message: authErrorMessage(result.error) });
    else onSignedIn();
  };
  return (
    <div className="space-y-2">
      <Button
        variant="secondary"
        className="w-full"
        pending={pending}
        pendingLabel="Waiting for the passkey…"
        onClick={() => void signIn()}
      >
        Sign in with a passkey
      </Button>
      <ErrorMessage error={error} />
    </div>
  );
}

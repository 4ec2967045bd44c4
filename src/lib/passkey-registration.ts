"use client";

import { startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { authClient } from "@/lib/auth-client";

type Refusal = { status: number; code?: string; message?: string };

/**
 * Add a passkey: the server's options, the browser's ceremony (the device asks for its PIN or
 * fingerprint), then the answer with the account's password, which the server requires for it.
 * (better-auth's client helper sends no password, so the three steps are taken here.)
 */
export async function addPasskey(input: { name: string; password: string }): Promise<{ error: Refusal | null }> {
  const options = await authClient.$fetch<PublicKeyCredentialCreationOptionsJSON>(
    "/passkey/generate-register-options",
    { method: "GET", query: input.name ? { name: input.name } : {} },
  );
  if (options.error || !options.data) return { error: refusal(options.error) };
  let response;
  try {
    response = await startRegistration({ optionsJSON: options.data });
  } catch (error) {
    const code = error instanceof WebAuthnError ? error.code : "REGISTRATION_CANCELLED";
    return { error: { status: 400, code, message: error instanceof Error ? error.message : undefined } };
  }
  const { clientExtensionResults: _unused, ...answer } = response;
  const verified = await authClient.$fetch("/passkey/verify-registration", {
    method: "POST",
    body: { response: answer, name: input.name || undefined, password: input.password },
  });
  return { error: verified.error ? refusal(verified.error) : null };
}

function refusal(error: { status?: number; code?: string; message?: string } | null | undefined): Refusal {
  return { status: error?.status ?? 500, code: error?.code, message: error?.message };
}

"use client";

import QRCode from "qrcode";
import { useEffect, useState } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { CopyField } from "@/components/ui/copy-field";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { authClient } from "@/lib/auth-client";
import { authErrorMessage } from "@/lib/auth-errors";
import { fieldOf, formLevelError, useZodForm } from "@/lib/forms";

const codeSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, "Enter the six digits the app shows"),
});

/**
 * The factor's secret as a QR code and as text for an app that cannot scan, then the app's first code:
 * only once it is confirmed does sign-in ask for codes (a mistyped scan locks nobody out).
 */
export function EnrolSecondFactor({
  totpURI,
  onConfirmed,
  onCancel,
}: {
  totpURI: string;
  onConfirmed(): void;
  onCancel(): void;
}) {
  const [qr, setQr] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void QRCode.toDataURL(totpURI, { margin: 1, width: 192 }).then((url) => live && setQr(url));
    return () => {
      live = false;
    };
  }, [totpURI]);
  const form = useZodForm(codeSchema, { code: "" });
  const submit = form.handleSubmit(async ({ code }) => {
    const result = await authClient.twoFactor.verifyTotp({ code });
    if (result.error) form.setError("root.server", { type: "server", message: authErrorMessage(result.error) });
    else onConfirmed();
  });
  return (
    <div className="space-y-4">
      <p className="text-sm">Scan this code with an authenticator app (1Password, Google Authenticator, Authy…).</p>
      {qr ? (
        // A data URL made here from the secret: nothing to optimise or fetch.
        // eslint-disable-next-line @next/next/no-img-element
        <img src={qr} width={192} height={192} alt="QR code to add OptStuff to an authenticator app" />
      ) : null}
      <CopyField label="Or type this key into the app" value={secretOf(totpURI)} wrap />
      <form onSubmit={submit} className="space-y-3" noValidate>
        <Field
          label="Code from the app"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          {...fieldOf(form, "code")}
        />
        <ErrorMessage error={formLevelError(form)} />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" pending={form.formState.isSubmitting} pendingLabel="Checking…">
            Confirm and turn on
          </Button>
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </form>
    </div>
  );
}

/** The base32 key inside the otpauth URI, in groups of four as apps show it. */
function secretOf(totpURI: string): string {
  const secret = new URL(totpURI).searchParams.get("secret") ?? "";
  return secret.replace(/(.{4})(?=.)/g, "$1 ");
}

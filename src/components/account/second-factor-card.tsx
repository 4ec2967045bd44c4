"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { authClient } from "@/lib/auth-client";
import { useTRPC } from "@/lib/trpc/client";
import { EnrolSecondFactor } from "./enrol-second-factor";
import { PasswordConfirm } from "./password-confirm";
import { RecoveryCodes } from "./recovery-codes";

/** Where the card is: showing the factor's state, setting it up, or showing new recovery codes once. */
type Step =
  | { kind: "shown" }
  | { kind: "enrolling"; totpURI: string; codes: string[] }
  | { kind: "codes"; codes: string[] }
  | { kind: "turning-off" };

/** Turn a second factor (an authenticator app's codes, with recovery codes) on or off. */
export function SecondFactorCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const security = useQuery(trpc.account.security.queryOptions());
  const [step, setStep] = useState<Step>({ kind: "shown" });
  if (security.isPending) return <Loading />;
  if (security.error) return <ErrorMessage error={security.error} />;
  const { secondFactor, password } = security.data;
  // The session was replaced: pages rendered before (a team's redirect here) are rendered again.
  const changed = async () => {
    router.refresh();
    await queryClient.invalidateQueries({ queryKey: trpc.account.pathKey() });
  };

  let body;
  if (step.kind === "enrolling")
    body = (
      <EnrolSecondFactor
        totpURI={step.totpURI}
        onConfirmed={() => {
          setStep({ kind: "codes", codes: step.codes });
          void changed();
        }}
        onCancel={() => setStep({ kind: "shown" })}
      />
    );
  else if (step.kind === "codes") body = <RecoveryCodes codes={step.codes} onDone={() => setStep({ kind: "shown" })} />;
  else if (step.kind === "turning-off")
    body = (
      <div className="space-y-3">
        <p className="text-sm">Sign-in will ask for your password only. Your recovery codes stop working.</p>
        <PasswordConfirm
          password={password}
          label="Turn off the second factor"
          variant="danger"
          onConfirm={async (typed) => {
            const result = await authClient.twoFactor.disable({ password: typed ?? "" });
            if (!result.error) {
              setStep({ kind: "shown" });
              await changed();
            }
            return result;
          }}
        />
        <Button variant="secondary" onClick={() => setStep({ kind: "shown" })}>
          Keep it on
        </Button>
      </div>
    );
  else if (secondFactor)
    body = (
      <div className="space-y-4">
        <p role="status" className="text-sm font-medium text-ok">
          On: sign-in asks for a code from your authenticator app.
        </p>
        <PasswordConfirm
          password={password}
          label="Make new recovery codes"
          variant="secondary"
          onConfirm={async (typed) => {
            const result = await authClient.twoFactor.generateBackupCodes({ password: typed ?? "" });
            if (result.data) setStep({ kind: "codes", codes: result.data.backupCodes });
            return result;
          }}
        />
        <Button variant="secondary" onClick={() => setStep({ kind: "turning-off" })}>
          Turn off…
        </Button>
      </div>
    );
  else
    body = (
      <div className="space-y-4">
        <p role="status" className="text-sm">
          Off: your password alone signs you in. With a second factor, sign-in also asks for a code from an
          authenticator app on your phone.
        </p>
        <PasswordConfirm
          password={password}
          label="Set up a second factor"
          onConfirm={async (typed) => {
            const result = await authClient.twoFactor.enable(typed === undefined ? {} : { password: typed });
            if (result.data?.method === "totp")
              setStep({ kind: "enrolling", totpURI: result.data.totpURI, codes: result.data.backupCodes });
            return result;
          }}
        />
      </div>
    );
  return <Card title="Second factor">{body}</Card>;
}

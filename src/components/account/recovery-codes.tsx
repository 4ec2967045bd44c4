"use client";

import { Button } from "@/components/ui/button";
import { CopyField } from "@/components/ui/copy-field";

/** Recovery codes, shown once: each signs in once in place of the app's code. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone(): void }) {
  return (
    <div className="space-y-3">
      <p role="status" className="text-sm">
        Save these {codes.length} recovery codes somewhere safe, such as a password manager. Each one signs you in once
        if you lose your authenticator app. They are not shown again.
      </p>
      <CopyField label="Recovery codes" value={codes.join("\n")} multiline wrap />
      <Button onClick={onDone}>I saved them</Button>
    </div>
  );
}

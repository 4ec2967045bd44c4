import { useState } from "react";

/**
 * What a dialog that shows a secret once keeps: whether the admin stored it (copied it, or said so),
 * and so whether the dialog may close. `shown` is whether the secret is on screen.
 */
export function useSecretShownOnce(shown: boolean) {
  const [saved, setSaved] = useState(false);
  return {
    saved,
    setSaved,
    /** A close asked for while the secret is on screen and not stored yet: ignored. */
    holdsClose: (next: boolean) => !next && shown && !saved,
    /** Escape and a click outside close it only once nothing would be lost. */
    dismissible: !shown || saved,
    reset: () => setSaved(false),
  };
}

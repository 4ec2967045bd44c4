import { useState } from "react";

/**
 * What a dialog that shows a secret once keeps: whether the admin stored it (copied it, or said so),
 * and so whether the dialog may close. `shown` is whether the secret is on screen; `sending`, whether
 * the request that makes it is out (closed then, the key would exist and its secret never be seen).
 */
export function useSecretShownOnce(shown: boolean, sending: boolean) {
  const [saved, setSaved] = useState(false);
  return {
    saved,
    setSaved,
    /** A close asked for while the secret is on its way, or on screen and not stored yet: ignored. */
    holdsClose: (next: boolean) => !next && (sending || (shown && !saved)),
    /** Escape and a click outside close it only once nothing would be lost. */
    dismissible: !sending && (!shown || saved),
    reset: () => setSaved(false),
  };
}

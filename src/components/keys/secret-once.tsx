import { Button } from "@/components/ui/button";
import { CopyField } from "@/components/ui/copy-field";

/**
 * The secret exists in the browser only here; after closing, only its public half is ever shown. The
 * dialog around it closes by "Done" only, once the secret was copied or the admin says it is stored.
 */
export function SecretOnce({
  publicKey,
  secretKey,
  env,
  saved,
  onSavedChange,
  onDone,
}: {
  publicKey: string;
  secretKey: string;
  env: string;
  saved: boolean;
  onSavedChange(saved: boolean): void;
  onDone(): void;
}) {
  return (
    <div className="space-y-3">
      <p role="status" className="rounded-md border border-warning-line bg-warning-soft p-3 text-sm text-warning">
        Copy the secret key now: it is shown once and cannot be shown again.
      </p>
      {/* Wrapped, not scrolled: at any width the whole secret is on screen to read, select and check. */}
      <CopyField label="Public key" value={publicKey} wrap />
      <CopyField label="Secret key" value={secretKey} wrap onCopied={() => onSavedChange(true)} />
      <CopyField label=".env" value={env} multiline wrap onCopied={() => onSavedChange(true)} />
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          className="size-4"
          checked={saved}
          onChange={(event) => onSavedChange(event.target.checked)}
        />
        I have stored the secret key
      </label>
      <div className="flex justify-end">
        <Button onClick={onDone} disabled={!saved}>
          Done
        </Button>
      </div>
    </div>
  );
}

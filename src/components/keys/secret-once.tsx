import { CopyField } from "@/components/ui/copy-field";

/** The secret exists in the browser only here; after closing, only its public half is ever shown. */
export function SecretOnce({ publicKey, secretKey, env }: { publicKey: string; secretKey: string; env: string }) {
  return (
    <div className="space-y-3">
      <p role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        Copy the secret key now: it is shown once and cannot be shown again.
      </p>
      <CopyField label="Public key" value={publicKey} />
      <CopyField label="Secret key" value={secretKey} />
      <CopyField label=".env" value={env} multiline />
    </div>
  );
}

import { eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import type { SecretBox } from "@/server/signing";

/**
 * Second step of a master-secret rotation: every API-key secret sealed under the previous master is
 * opened and sealed again under the current one. Idempotent; afterwards the previous master can go.
 * Returns how many rows were re-sealed (and which, so their cached copies can be dropped).
 */
export async function resealSecrets(deps: { db: Database; secretBox: SecretBox }): Promise<{ resealed: number; current: number; publicKeys: string[] }> {
  const rows = await deps.db.select({ id: apiKeys.id, publicKey: apiKeys.publicKey, sealed: apiKeys.encryptedSecret }).from(apiKeys);
  const publicKeys: string[] = [];
  for (const row of rows) {
    if (!deps.secretBox.needsReseal(row.sealed)) continue;
    const secret = deps.secretBox.open(row.sealed, row.publicKey);
    // Compare-and-set on the old value: a concurrent rotation of this key wins over the re-seal.
    await deps.db
      .update(apiKeys)
      .set({ encryptedSecret: deps.secretBox.seal(secret, row.publicKey) })
      .where(eq(apiKeys.encryptedSecret, row.sealed));
    publicKeys.push(row.publicKey);
  }
  return { resealed: publicKeys.length, current: rows.length - publicKeys.length, publicKeys };
}

import { eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys, sourceBuckets } from "@/server/db/schema";
import { bucketSealContext } from "@/server/delivery/buckets";
import type { SecretBox } from "@/server/signing";
import { resealWebhooks } from "@/server/webhooks/reseal";

export interface ResealOutcome {
  resealed: number;
  current: number;
  /** Keys whose cached copies must be dropped. */
  publicKeys: string[];
  /** Projects whose cached config carries a re-sealed bucket secret. */
  projectIds: string[];
}

/**
 * Second step of a master-secret rotation: every secret sealed under the previous master (API keys',
 * private buckets' and webhooks') is opened and sealed again under the current one. Idempotent; afterwards the
 * previous master can go. Compare-and-set on the old value: a concurrent change of the row wins.
 */
export async function resealSecrets(deps: { db: Database; secretBox: SecretBox }): Promise<ResealOutcome> {
  const { secretBox, db } = deps;
  const keys = await db.select({ publicKey: apiKeys.publicKey, sealed: apiKeys.encryptedSecret }).from(apiKeys);
  const buckets = await db
    .select({ id: sourceBuckets.id, projectId: sourceBuckets.projectId, sealed: sourceBuckets.sealedSecret })
    .from(sourceBuckets);
  const publicKeys: string[] = [];
  const projectIds = new Set<string>();
  for (const row of keys.filter((k) => secretBox.needsReseal(k.sealed))) {
    const secret = secretBox.open(row.sealed, row.publicKey);
    await db
      .update(apiKeys)
      .set({ encryptedSecret: secretBox.seal(secret, row.publicKey) })
      .where(eq(apiKeys.encryptedSecret, row.sealed));
    publicKeys.push(row.publicKey);
  }
  const stale = buckets.filter((b) => secretBox.needsReseal(b.sealed));
  for (const row of stale) {
    const context = bucketSealContext(row.id);
    const secret = secretBox.open(row.sealed, context);
    await db
      .update(sourceBuckets)
      .set({ sealedSecret: secretBox.seal(secret, context) })
      .where(eq(sourceBuckets.sealedSecret, row.sealed));
    projectIds.add(row.projectId);
  }
  const webhooks = await resealWebhooks(db, secretBox);
  const resealed = publicKeys.length + stale.length + webhooks.resealed;
  return {
    resealed,
    current: keys.length + buckets.length + webhooks.resealed + webhooks.current - resealed,
    publicKeys,
    projectIds: [...projectIds],
  };
}

import { and, isNull, lte } from "drizzle-orm";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { Database } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";

/**
 * Marks keys whose expiry has passed (rotated keys at the end of their grace period included) and
 * drops their cached config. Requests already refuse them from expiresAt on; the mark lets the
 * dashboard and the database say so without comparing clocks, and the sweep handles each key once.
 */
export async function sweepExpiredKeys(
  deps: { db: Database; invalidate: ConfigInvalidator },
  now: Date,
): Promise<number> {
  const expired = await deps.db
    .update(apiKeys)
    .set({ expiredAt: now, updatedAt: now })
    .where(and(lte(apiKeys.expiresAt, now), isNull(apiKeys.expiredAt)))
    .returning({ publicKey: apiKeys.publicKey });
  await deps.invalidate.apiKeys(expired.map((k) => k.publicKey));
  return expired.length;
}

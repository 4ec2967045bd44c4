import { inArray, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys, usageFlushLedger, usageRecord } from "@/server/db/schema";
import { aggregateClaims, keyIdsOf, type BucketTotals, type ClaimedBucket } from "./aggregate-claims";

/** Rows per upsert statement: 6 parameters each, well under PostgreSQL's 65,535. */
const ROWS_PER_STATEMENT = 5_000;
const KEYS_PER_LOOKUP = 10_000;

export interface AppliedClaims {
  /** Claims this call applied; the others were applied before (a retried claim). */
  applied: BucketTotals[];
  alreadyApplied: number;
  rows: number;
}

/**
 * One transaction: lock the keys the claims mention (KEY SHARE: a key deleted meanwhile waits for the
 * commit, so no row can point at a vanished key), record each claim in the ledger, and add the claims
 * that were new to usage_record with one upsert per 5,000 rows. A claim already in the ledger adds
 * nothing: that is what makes a retried flush exactly-once. `beforeCommit` is the crash-test hook.
 */
export async function applyClaims(
  db: Database,
  claims: readonly ClaimedBucket[],
  beforeCommit?: () => Promise<void>,
): Promise<AppliedClaims> {
  if (claims.length === 0) return { applied: [], alreadyApplied: 0, rows: 0 };
  return db.transaction(async (tx) => {
    const applied = await applyClaimsIn(tx, claims);
    await beforeCommit?.();
    return applied;
  });
}

/** applyClaims inside a transaction the caller holds (the database buffer takes its minutes in it too). */
export async function applyClaimsIn(
  tx: Pick<Database, "select" | "insert">,
  claims: readonly ClaimedBucket[],
): Promise<AppliedClaims> {
  if (claims.length === 0) return { applied: [], alreadyApplied: 0, rows: 0 };
  const keyProjects = new Map<string, string>();
  const ids = keyIdsOf(claims);
  for (let i = 0; i < ids.length; i += KEYS_PER_LOOKUP) {
    const found = await tx
      .select({ id: apiKeys.id, projectId: apiKeys.projectId })
      .from(apiKeys)
      .where(inArray(apiKeys.id, ids.slice(i, i + KEYS_PER_LOOKUP)))
      .for("key share");
    for (const key of found) keyProjects.set(key.id, key.projectId);
  }
  const all = aggregateClaims(claims, keyProjects);
  const inserted = await tx
    .insert(usageFlushLedger)
    .values(all.totals)
    .onConflictDoNothing()
    .returning({ bucket: usageFlushLedger.bucket, claim: usageFlushLedger.claim });
  const isNew = new Set(inserted.map((row) => `${row.bucket}|${row.claim}`));
  const fresh = claims.filter((claim) => isNew.has(`${claim.stamp}|${claim.claim}`));
  const { rows, totals } = fresh.length === claims.length ? all : aggregateClaims(fresh, keyProjects);
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await tx
      .insert(usageRecord)
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflictDoUpdate({
        target: [usageRecord.projectId, usageRecord.apiKeyId, usageRecord.date],
        set: {
          requests: sql`${usageRecord.requests} + excluded.requests`,
          bytes: sql`${usageRecord.bytes} + excluded.bytes`,
          transforms: sql`${usageRecord.transforms} + excluded.transforms`,
          updatedAt: sql`now()`,
        },
      });
  }
  return { applied: totals, alreadyApplied: claims.length - fresh.length, rows: rows.length };
}

import { and, eq, sql } from "drizzle-orm";
import type { SpendCapName } from "@/lib/schemas/spend-cap";
import { auditTrail, systemActor } from "@/server/audit/trail";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { Database } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { keyTarget } from "@/server/tenancy/create-api-key";
import { bindingCap, capUses, readKeySpending, type KeySpending } from "./spending";

export interface CapCheckDeps {
  db: Database;
  invalidate: ConfigInvalidator;
  now: () => Date;
}

export interface CapCheckReport {
  /** Capped keys read. */
  capped: number;
  /** Keys this check marked as having reached a cap. */
  reached: number;
  /** Keys whose mark it cleared: a new period, or a cap changed while the mark was being read. */
  released: number;
}

type Holding = { cap: SpendCapName; until: Date } | null;

/**
 * Marks the keys that reached a cap, from the usage just flushed, until their period ends, and
 * releases those that no longer have: one write and one audit entry per key whose state changed, never
 * per request. The image route reads the mark from the key's cached config (spend-caps/refusal.ts), so
 * the cap holds from the flush that counts the spending that reached it: the overshoot is what the key
 * transforms before then, up to about two minutes of its minute limit (docs/dashboard.md).
 */
export async function enforceSpendCaps(deps: CapCheckDeps): Promise<CapCheckReport> {
  const now = deps.now();
  const keys = await readKeySpending(deps.db, now);
  const audit = auditTrail(systemActor("spend-cap check"), deps.now);
  const changed: string[] = [];
  const report: CapCheckReport = { capped: keys.length, reached: 0, released: 0 };
  for (const key of keys) {
    const binding = bindingCap(capUses(key), now);
    const holding: Holding = binding && { cap: binding.use.cap, until: binding.until };
    if (sameHolding(key, holding)) continue;
    const wrote = await deps.db.transaction(async (tx) => {
      // Only if the cap and its mark are still those read: an admin's change meanwhile clears the mark
      // itself, and of two checks at once (instances after their flushes) one writes it and its entry.
      const [row] = await tx
        .update(apiKeys)
        .set({ capReached: holding?.cap ?? null, capReachedUntil: holding?.until ?? null })
        .where(
          and(
            eq(apiKeys.id, key.id),
            sql`${apiKeys.spendCap} = ${JSON.stringify(key.cap)}::jsonb`,
            sql`${apiKeys.capReached} is not distinct from ${key.capReached}::text`,
            sql`${apiKeys.capReachedUntil} is not distinct from ${key.capReachedUntil?.toISOString() ?? null}::timestamptz`,
          ),
        )
        .returning({ id: apiKeys.id });
      if (row && binding)
        await audit.record(tx, {
          teamId: key.teamId,
          projectId: key.projectId,
          action: "api_key.cap_reached",
          target: keyTarget(key.id, key.name, key.publicKey),
          changes: {
            capReached: { from: null, to: `${binding.use.cap}: ${binding.use.spent} of ${binding.use.limit}` },
            refusedUntil: { from: null, to: binding.until.toISOString() },
          },
        });
      return Boolean(row);
    });
    if (!wrote) continue;
    changed.push(key.publicKey);
    if (holding) report.reached++;
    else report.released++;
  }
  if (changed.length > 0) await deps.invalidate.apiKeys(changed);
  return report;
}

function sameHolding(key: Pick<KeySpending, "capReached" | "capReachedUntil">, holding: Holding): boolean {
  if (!holding) return key.capReached === null && key.capReachedUntil === null;
  return key.capReached === holding.cap && key.capReachedUntil?.getTime() === holding.until.getTime();
}

import type { SQLWrapper } from "drizzle-orm";
import { requestVariantDays } from "@/server/db/schema";
import type { Database } from "@/server/db/client";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { inKeyOrder, projectRows } from "./batch-rows";
import type { DailyAllowance } from "./daily-allowance";

type VariantRow = typeof requestVariantDays.$inferInsert;

/**
 * Written instead of the variant once a project-day's allowance is spent (daily-allowance.ts): that
 * day's count is then a lower bound, and the usage page says "at least".
 */
export const MORE_VARIANTS = "+";

/**
 * request_variant_days' share of a stats batch: each variant a project delivered that day, once. The
 * final AVIF made after an interim answer counts (it is a transformation of its own, delivered from then
 * on); a 304, a fallback and a refusal carry no variant. Rows go in key order: an insert waiting on
 * another writer's conflicting row would otherwise deadlock against it on PostgreSQL.
 */
export function createVariantRows(allowance: DailyAllowance) {
  const share = projectRows<VariantRow>();
  const rows = share.rows;
  // Onto the share itself: its size stays a live getter.
  return Object.assign(share, {
    add(outcome: RequestOutcome & { projectId: string }, at: Date): void {
      // The info answer's JSON describes an image: it makes none.
      if (outcome.status !== "success" || !outcome.variant || outcome.outputFormat === "json") return;
      const day = at.toISOString().slice(0, 10);
      const variant = allowance.admits(outcome.projectId, day, outcome.variant) ? outcome.variant : MORE_VARIANTS;
      rows.set(`${outcome.projectId}|${day}|${variant}`, { day, projectId: outcome.projectId, variant });
    },
    /** Its insert, for the batch's one statement (one-statement.ts); null when it counted nothing. */
    statement(db: Pick<Database, "insert">): SQLWrapper | null {
      if (rows.size === 0) return null;
      return db.insert(requestVariantDays).values(inKeyOrder(rows)).onConflictDoNothing();
    },
  });
}

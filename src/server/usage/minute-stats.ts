import type { SQLWrapper } from "drizzle-orm";
import { outcomeOf } from "./outcomes";
import type { Database } from "@/server/db/client";
import { requestMinuteStats } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { added, inKeyOrder, projectRows } from "./batch-rows";

type MinuteRow = typeof requestMinuteStats.$inferInsert;

/**
 * request_minute_stats' share of a stats batch: every request per project and minute, and those that
 * failed (the source or the server, as the usage page's outcome chart counts them), for the error-rate
 * alert's 15 minutes. Upserted in key order, as the other statistics.
 */
export function createMinuteRows() {
  const share = projectRows<MinuteRow>();
  const rows = share.rows;
  // Onto the share itself: its size stays a live getter.
  return Object.assign(share, {
    add(outcome: RequestOutcome & { projectId: string }, at: Date): void {
      const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
      const id = `${outcome.projectId}|${minute.toISOString()}`;
      const row = rows.get(id) ?? { projectId: outcome.projectId, minute, requests: 0, failed: 0 };
      row.requests! += 1;
      if (outcomeOf(outcome.status, outcome.cache ?? "") === "failed") row.failed! += 1;
      rows.set(id, row);
    },
    /** Its upsert, for the batch's one statement (one-statement.ts); null when it counted nothing. */
    statement(db: Pick<Database, "insert">): SQLWrapper | null {
      if (rows.size === 0) return null;
      return db
        .insert(requestMinuteStats)
        .values(inKeyOrder(rows))
        .onConflictDoUpdate({
          target: [requestMinuteStats.projectId, requestMinuteStats.minute],
          set: { requests: added(requestMinuteStats.requests), failed: added(requestMinuteStats.failed) },
        });
    },
  });
}

import { sql, type SQLWrapper } from "drizzle-orm";
import { requestQualityStats } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import type { Database } from "@/server/db/client";
import { added, inKeyOrder, projectRows } from "./batch-rows";

type QualityRow = typeof requestQualityStats.$inferInsert;

const SUMMED = [
  "requests",
  "outputBytes",
  "measuredRequests",
  "measuredSourceBytes",
  "measuredOutputBytes",
  "scoredRequests",
  "scoreSum",
] as const;

/**
 * request_quality_stats' share of a stats batch: successful image answers per project, day, quality
 * mode and format, summed in memory, then added in one upsert (rows in key order, as request_stats').
 */
export function createQualityRows() {
  const share = projectRows<QualityRow>();
  const rows = share.rows;
  // Onto the share itself: its size stays a live getter.
  return Object.assign(share, {
    add(outcome: RequestOutcome & { projectId: string }, at: Date): void {
      const { qualityMode: mode, outputFormat: format, outputBytes } = outcome;
      if (outcome.status !== "success" || !mode || !format || outputBytes == null) return;
      const day = at.toISOString().slice(0, 10);
      const id = `${outcome.projectId}|${day}|${mode}|${format}`;
      const row = rows.get(id) ?? {
        day,
        projectId: outcome.projectId,
        mode,
        format,
        ...(Object.fromEntries(SUMMED.map((column) => [column, 0])) as Record<(typeof SUMMED)[number], number>),
        scoreMin: null,
      };
      row.requests! += 1;
      row.outputBytes! += outputBytes;
      if (outcome.sourceBytes != null) {
        row.measuredRequests! += 1;
        row.measuredSourceBytes! += outcome.sourceBytes;
        row.measuredOutputBytes! += outputBytes;
      }
      if (outcome.measured) {
        row.scoredRequests! += 1;
        row.scoreSum! += outcome.measured.score;
        row.scoreMin = Math.min(row.scoreMin ?? Infinity, outcome.measured.score);
      }
      rows.set(id, row);
    },
    /** Its upsert, for the batch's one statement (one-statement.ts); null when it counted nothing. */
    statement(db: Pick<Database, "insert">): SQLWrapper | null {
      if (rows.size === 0) return null;
      return db
        .insert(requestQualityStats)
        .values(inKeyOrder(rows))
        .onConflictDoUpdate({
          target: [
            requestQualityStats.projectId,
            requestQualityStats.day,
            requestQualityStats.mode,
            requestQualityStats.format,
          ],
          set: {
            ...Object.fromEntries(SUMMED.map((column) => [column, added(requestQualityStats[column])])),
            // least() skips nulls: the lowest of the two, or whichever is known.
            scoreMin: sql`least(${requestQualityStats.scoreMin}, excluded.score_min)`,
          },
        });
    },
  });
}

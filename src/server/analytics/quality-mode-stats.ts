import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database } from "@/server/db/client";
import { requestQualityStats } from "@/server/db/schema";
import type { DateRange } from "./date-range";

const sum = (column: AnyPgColumn) => sql<number>`coalesce(sum(${column}), 0)::float8`;

/**
 * What each quality mode delivered over the range, per output format, most requests first: answers,
 * bytes served and their mean, how much smaller than the originals (over the answers that fetched
 * theirs; null where none did), and the SSIMULACRA 2 score the searches reached (mean and lowest).
 */
export async function qualityModeStats(db: Database, projectId: string, range: DateRange) {
  const t = requestQualityStats;
  const rows = await db
    .select({
      mode: t.mode,
      format: t.format,
      requests: sum(t.requests),
      outputBytes: sum(t.outputBytes),
      measuredSourceBytes: sum(t.measuredSourceBytes),
      measuredOutputBytes: sum(t.measuredOutputBytes),
      scoredRequests: sum(t.scoredRequests),
      scoreSum: sum(t.scoreSum),
      scoreMin: sql<number | null>`min(${t.scoreMin})::float8`,
    })
    .from(t)
    .where(and(eq(t.projectId, projectId), gte(t.day, range.from), lte(t.day, range.to)))
    .groupBy(t.mode, t.format)
    .orderBy(sql`3 desc`, t.mode, t.format);
  return rows.map((r) => ({
    mode: r.mode,
    format: r.format,
    requests: r.requests,
    outputBytes: r.outputBytes,
    meanBytes: r.requests > 0 ? r.outputBytes / r.requests : null,
    /** 1 − served ÷ originals, over the answers that fetched their original. */
    savedShare: r.measuredSourceBytes > 0 ? 1 - r.measuredOutputBytes / r.measuredSourceBytes : null,
    meanScore: r.scoredRequests > 0 ? r.scoreSum / r.scoredRequests : null,
    minScore: r.scoreMin,
  }));
}

import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { PROCESSING_BOUNDS_MS, requestStats } from "@/server/db/schema";
import { HISTOGRAM_COLUMNS, type HistogramColumn } from "@/server/usage/request-stats";
import { rangeInstants, type DateRange } from "./date-range";
import { sum } from "./sums";

const success = sql`${requestStats.status} = 'success'`;

/**
 * What the project's traffic looked like over the range, from request_stats (every request, per hour):
 * a few rows per project-hour whatever the traffic, so the page stays fast at any rate. Timing is over
 * successes, from a histogram (p95 to its bucket, interpolated). What was saved is savings.ts's.
 */
export async function requestLogStats(db: Database, projectId: string, range: DateRange) {
  const { start, end } = rangeInstants(range);
  const where = and(eq(requestStats.projectId, projectId), gte(requestStats.hour, start), lt(requestStats.hour, end));
  const [[summary], statuses, tiers] = await Promise.all([
    db
      .select({
        logged: sum(requestStats.requests),
        successes: sum(requestStats.requests, success),
        processingMs: sum(requestStats.processingMs, success),
        ...Object.fromEntries(HISTOGRAM_COLUMNS.map((column) => [column, sum(requestStats[column], success)])),
      } as Record<"logged" | "successes" | "processingMs" | HistogramColumn, SQL<number>>)
      .from(requestStats)
      .where(where),
    db
      .select({ status: requestStats.status, requests: sum(requestStats.requests) })
      .from(requestStats)
      .where(where)
      .groupBy(requestStats.status),
    db
      .select({ tier: requestStats.cache, requests: sum(requestStats.requests) })
      .from(requestStats)
      .where(and(where, success))
      .groupBy(requestStats.cache),
  ]);
  const s = summary!;
  return {
    logged: s.logged,
    successRate: s.logged > 0 ? s.successes / s.logged : null,
    processing: {
      averageMs: s.successes > 0 ? s.processingMs / s.successes : null,
      p95Ms: percentileOf(
        HISTOGRAM_COLUMNS.map((column) => s[column]),
        0.95,
      ),
    },
    statuses: statuses.sort((a, b) => b.requests - a.requests),
    /** Which tier answered the successes (hit = in memory, store, shared, miss = transformed, revalidated = 304). */
    tiers: tiers.filter((t) => t.tier !== "").sort((a, b) => b.requests - a.requests),
  };
}

/**
 * The q-quantile of a histogram over PROCESSING_BOUNDS_MS, interpolated inside its bucket; in the last
 * (open) bucket, its lower bound. Null without requests.
 */
export function percentileOf(counts: readonly number[], q: number): number | null {
  const all = counts.reduce((sum, count) => sum + count, 0);
  if (all === 0) return null;
  const rank = q * all;
  let below = 0;
  for (const [index, count] of counts.entries()) {
    if (count > 0 && below + count >= rank) {
      const lower = index === 0 ? 0 : PROCESSING_BOUNDS_MS[index - 1]!;
      const upper = PROCESSING_BOUNDS_MS[index];
      if (upper === undefined) return lower;
      return lower + ((rank - below) / count) * (upper - lower);
    }
    below += count;
  }
  return PROCESSING_BOUNDS_MS.at(-1)!;
}

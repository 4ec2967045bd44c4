import { and, desc, eq, gte, ilike, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys, PROCESSING_BOUNDS_MS, requestLog, requestStats } from "@/server/db/schema";
import { HISTOGRAM_COLUMNS, type HistogramColumn } from "@/server/usage/request-stats";
import type { RequestLogStatus } from "@/server/errors";
import { rangeInstants, type DateRange } from "./date-range";
import { sum } from "./sums";

const success = sql`${requestStats.status} = 'success'`;

function inRange(projectId: string, range: DateRange) {
  const { start, end } = rangeInstants(range);
  return and(eq(requestLog.projectId, projectId), gte(requestLog.createdAt, start), lt(requestLog.createdAt, end));
}

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

export interface RequestLogPageInput {
  status?: RequestLogStatus;
  /**
   * One request by the id its response carried (X-Request-Id, `requestId` in error bodies), whatever
   * the range and status: what an integrator has in hand when an image failed.
   */
  requestId?: string;
  /** Requests whose source URL contains this text, in any case (`%` and `_` are plain characters). */
  source?: string;
  /** The last id of the previous page. */
  before?: number;
  limit: number;
}

/** A LIKE pattern matching `text` anywhere, with LIKE's own wildcards in it taken literally. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Rows after the given one in the page order (time, then id, newest first). */
function before(projectId: string, id: number): SQL {
  const cursor = sql`(select ${requestLog.createdAt}, ${requestLog.id} from ${requestLog} where ${requestLog.id} = ${id} and ${requestLog.projectId} = ${projectId})`;
  return sql`(${requestLog.createdAt}, ${requestLog.id}) < ${cursor}`;
}

/** Newest first, by time then id (keyset paging: stable while new rows arrive). */
export async function requestLogPage(db: Database, projectId: string, range: DateRange, input: RequestLogPageInput) {
  // The page is chosen from request_log alone, then named: joined first, a planner without statistics
  // (PGlite runs no autovacuum) hashed every row of the range to sort them (250 ms at a day at the cap).
  const chosen = db
    .select({
      id: requestLog.id,
      requestId: requestLog.requestId,
      createdAt: requestLog.createdAt,
      status: requestLog.status,
      httpStatus: requestLog.httpStatus,
      sourceUrl: requestLog.sourceUrl,
      operations: requestLog.operations,
      outputFormat: requestLog.outputFormat,
      quality: requestLog.quality,
      score: requestLog.score,
      outputBytes: requestLog.outputBytes,
      processingMs: requestLog.processingMs,
      cache: requestLog.cache,
      apiKeyId: requestLog.apiKeyId,
    })
    .from(requestLog)
    .where(
      input.requestId
        ? and(eq(requestLog.projectId, projectId), eq(requestLog.requestId, input.requestId))
        : and(
            inRange(projectId, range),
            input.status ? eq(requestLog.status, input.status) : undefined,
            input.source ? ilike(requestLog.sourceUrl, containing(input.source)) : undefined,
            input.before ? before(projectId, input.before) : undefined,
          ),
    )
    .orderBy(desc(requestLog.createdAt), desc(requestLog.id))
    .limit(input.limit + 1)
    .as("chosen");
  const rows = await db
    .select({
      id: chosen.id,
      requestId: chosen.requestId,
      createdAt: chosen.createdAt,
      status: chosen.status,
      httpStatus: chosen.httpStatus,
      sourceUrl: chosen.sourceUrl,
      operations: chosen.operations,
      outputFormat: chosen.outputFormat,
      quality: chosen.quality,
      score: chosen.score,
      outputBytes: chosen.outputBytes,
      processingMs: chosen.processingMs,
      cache: chosen.cache,
      keyName: apiKeys.name,
    })
    .from(chosen)
    .leftJoin(apiKeys, eq(apiKeys.id, chosen.apiKeyId))
    .orderBy(desc(chosen.createdAt), desc(chosen.id));
  const more = rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  return { rows: page, nextBefore: more ? page.at(-1)!.id : null };
}

import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys, requestLog } from "@/server/db/schema";
import type { RequestLogStatus } from "@/server/errors";
import { rangeInstants, type DateRange } from "./date-range";

const success = sql`${requestLog.status} = 'success'`;
const measured = sql`${success} and ${requestLog.sourceBytes} is not null and ${requestLog.outputBytes} is not null`;
const weighted = (filter: SQL) => sql<number>`coalesce(sum(${requestLog.weight}) filter (where ${filter}), 0)::float8`;

function inRange(projectId: string, range: DateRange) {
  const { start, end } = rangeInstants(range);
  return and(eq(requestLog.projectId, projectId), gte(requestLog.createdAt, start), lt(requestLog.createdAt, end));
}

/**
 * What the request log tells about a project's traffic. Rows carry the number of requests they stand
 * for (successes are sampled), so counts are estimates from weights; failures are capped per minute,
 * so under a flood the success rate reads high. Timing is over logged successes; bandwidth saved is
 * over the successes that fetched their original (cache hits never see it), with that share given.
 */
export async function requestLogStats(db: Database, projectId: string, range: DateRange) {
  const where = inRange(projectId, range);
  const [[summary], statuses, topSources, tiers] = await Promise.all([
    db
      .select({
        logged: weighted(sql`true`),
        successes: weighted(success),
        averageMs: sql<number | null>`(avg(${requestLog.processingMs}) filter (where ${success}))::float8`,
        p95Ms: sql<
          number | null
        >`(percentile_cont(0.95) within group (order by ${requestLog.processingMs}) filter (where ${success}))::float8`,
        measuredRequests: weighted(measured),
        originalBytes: sql<number>`coalesce(sum(${requestLog.sourceBytes} * ${requestLog.weight}) filter (where ${measured}), 0)::float8`,
        outputBytes: sql<number>`coalesce(sum(${requestLog.outputBytes} * ${requestLog.weight}) filter (where ${measured}), 0)::float8`,
      })
      .from(requestLog)
      .where(where),
    db
      .select({ status: requestLog.status, requests: sql<number>`sum(${requestLog.weight})::float8` })
      .from(requestLog)
      .where(where)
      .groupBy(requestLog.status),
    db
      .select({
        sourceUrl: sql<string>`${requestLog.sourceUrl}`,
        requests: sql<number>`sum(${requestLog.weight})::float8`,
        outputBytes: sql<number>`coalesce(sum(${requestLog.outputBytes} * ${requestLog.weight}), 0)::float8`,
      })
      .from(requestLog)
      .where(and(where, success, sql`${requestLog.sourceUrl} is not null`))
      .groupBy(requestLog.sourceUrl)
      .orderBy(sql`2 desc`, requestLog.sourceUrl)
      .limit(10),
    db
      .select({ tier: requestLog.cache, requests: sql<number>`sum(${requestLog.weight})::float8` })
      .from(requestLog)
      .where(and(where, success))
      .groupBy(requestLog.cache),
  ]);
  const s = summary!;
  return {
    logged: s.logged,
    successRate: s.logged > 0 ? s.successes / s.logged : null,
    processing: { averageMs: s.averageMs, p95Ms: s.p95Ms },
    statuses: statuses.sort((a, b) => b.requests - a.requests),
    topSources,
    /** Which tier answered the logged successes (cache column: hit = in memory, store, shared, miss = transformed, revalidated = 304). */
    tiers: tiers
      .filter((t): t is { tier: string; requests: number } => t.tier !== null)
      .sort((a, b) => b.requests - a.requests),
    bandwidth: {
      originalBytes: s.originalBytes,
      outputBytes: s.outputBytes,
      savedBytes: s.originalBytes - s.outputBytes,
      /** Share of logged successes the figure covers. */
      coverage: s.successes > 0 ? s.measuredRequests / s.successes : null,
    },
  };
}

export interface RequestLogPageInput {
  status?: RequestLogStatus;
  /**
   * One request by the id its response carried (X-Request-Id, `requestId` in error bodies), whatever
   * the range and status: what an integrator has in hand when an image failed.
   */
  requestId?: string;
  /** The last id of the previous page. */
  before?: number;
  limit: number;
}

/** Newest first, by id (keyset paging: stable while new rows arrive). */
export async function requestLogPage(db: Database, projectId: string, range: DateRange, input: RequestLogPageInput) {
  const rows = await db
    .select({
      id: requestLog.id,
      requestId: requestLog.requestId,
      createdAt: requestLog.createdAt,
      status: requestLog.status,
      httpStatus: requestLog.httpStatus,
      sourceUrl: requestLog.sourceUrl,
      operations: requestLog.operations,
      outputFormat: requestLog.outputFormat,
      outputBytes: requestLog.outputBytes,
      processingMs: requestLog.processingMs,
      cache: requestLog.cache,
      keyName: apiKeys.name,
    })
    .from(requestLog)
    .leftJoin(apiKeys, eq(apiKeys.id, requestLog.apiKeyId))
    .where(
      input.requestId
        ? and(eq(requestLog.projectId, projectId), eq(requestLog.requestId, input.requestId))
        : and(
            inRange(projectId, range),
            input.status ? eq(requestLog.status, input.status) : undefined,
            input.before ? lt(requestLog.id, input.before) : undefined,
          ),
    )
    .orderBy(desc(requestLog.id))
    .limit(input.limit + 1);
  const more = rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  return { rows: page, nextBefore: more ? page.at(-1)!.id : null };
}

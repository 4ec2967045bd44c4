import { and, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { sourceMatchOf, type SourceMatch } from "@/lib/schemas/request-log";
import type { Database } from "@/server/db/client";
import { scanNewestFirst } from "@/server/db/newest-first-scan";
import { apiKeys, requestLog } from "@/server/db/schema";
import { sourceName } from "@/server/delivery/result-keys";
import { isAppError, type RequestLogStatus } from "@/server/errors";
import { parseSource } from "@/server/source/parse-source";
import { sourceHashOf } from "@/server/usage/logged-source";
import { rangeInstants, type DateRange } from "./date-range";

export interface RequestLogPageInput {
  status?: RequestLogStatus;
  /**
   * One request by the id its response carried (X-Request-Id, `requestId` in error bodies), whatever
   * the range and status: what an integrator has in hand when an image failed.
   */
  requestId?: string;
  /**
   * Up to SOURCE_CONTAINS_MAX characters: requests whose kept source name contains it, in any case.
   * Longer: requests for exactly that source (as a URL names it, scheme or not).
   */
  source?: string;
  /** The `nextBefore` of the page before: rows older than that one. */
  before?: number;
  limit: number;
}

export interface RequestLogPage {
  rows: Array<Awaited<ReturnType<typeof named>>[number]>;
  /** Where the next page starts; null when there is nothing older. */
  nextBefore: number | null;
  /** How the source filter matched (null without one). */
  sourceMatch: SourceMatch | null;
  /**
   * A contained-text filter looked at a bounded number of rows: when they ran out before the page
   * filled, this is the time it searched back to (older rows are the next page's), else null.
   */
  searchedBackTo: Date | null;
}

/**
 * Newest first, by time then id (keyset paging: stable while new rows arrive). Every form of the
 * filters is served by an index or bounded by construction: a request id is one probe, a status or an
 * exact source walks its own index, and text inside a source name (or a status beside an exact source)
 * is checked over at most DASHBOARD_SCAN's rows a call (newest-first-scan.ts), never the whole range.
 */
export async function requestLogPage(
  db: Database,
  projectId: string,
  range: DateRange,
  input: RequestLogPageInput,
  signal?: AbortSignal,
): Promise<RequestLogPage> {
  const sourceMatch = input.source ? sourceMatchOf(input.source) : null;
  if (input.requestId) {
    const ids = await db
      .select({ id: requestLog.id })
      .from(requestLog)
      .where(and(eq(requestLog.projectId, projectId), eq(requestLog.requestId, input.requestId)))
      .orderBy(desc(requestLog.createdAt), desc(requestLog.id))
      .limit(input.limit);
    return { rows: await named(db, ids), nextBefore: null, sourceMatch, searchedBackTo: null };
  }
  // One index walks the page: the exact source's, else the status's, else the project's (by time).
  // Any other filter is checked in Node on a bounded scan of that walk, never in a statement, where
  // a filter the index cannot serve would read the whole range.
  const hash = input.source && sourceMatch === "exact" ? sourceHashOf(nameOf(input.source)) : null;
  const walked = and(
    inRange(projectId, range),
    hash ? eq(requestLog.sourceHash, hash) : input.status ? eq(requestLog.status, input.status) : undefined,
  );
  const start = input.before ? before(projectId, input.before) : undefined;
  const text = input.source && sourceMatch === "contains" ? input.source.toLowerCase() : null;
  const status = hash ? input.status : undefined;
  if (!text && !status) {
    const ids = await db
      .select({ id: requestLog.id })
      .from(requestLog)
      .where(and(walked, start))
      .orderBy(desc(requestLog.createdAt), desc(requestLog.id))
      .limit(input.limit + 1);
    const more = ids.length > input.limit;
    const page = await named(db, ids.slice(0, input.limit));
    return { rows: page, nextBefore: more ? page.at(-1)!.id : null, sourceMatch, searchedBackTo: null };
  }
  const scanned = await scanNewestFirst<ScannedRow>({
    read: (after, size) =>
      db
        .select({
          id: requestLog.id,
          createdAt: requestLog.createdAt,
          sourceUrl: requestLog.sourceUrl,
          status: requestLog.status,
        })
        .from(requestLog)
        .where(and(walked, after ? before(projectId, after.id) : start))
        .orderBy(desc(requestLog.createdAt), desc(requestLog.id))
        .limit(size),
    matches: (row) =>
      (!status || row.status === status) &&
      (!text || (row.sourceUrl !== null && row.sourceUrl.toLowerCase().includes(text))),
    want: input.limit,
    signal,
  });
  return {
    rows: await named(db, scanned.rows),
    nextBefore: scanned.resume?.id ?? null,
    sourceMatch,
    searchedBackTo: scanned.partial ? (scanned.resume?.createdAt ?? null) : null,
  };
}

/** What a scan reads of a row to check the filters no index serves. */
interface ScannedRow {
  id: number;
  createdAt: Date;
  sourceUrl: string | null;
  status: string;
}

function inRange(projectId: string, range: DateRange): SQL {
  const { start, end } = rangeInstants(range);
  return and(eq(requestLog.projectId, projectId), gte(requestLog.createdAt, start), lt(requestLog.createdAt, end))!;
}

/**
 * Rows after the given one in the page order (time, then id, newest first); its time read back in SQL,
 * which keeps microseconds where a Date keeps milliseconds.
 */
function before(projectId: string, id: number): SQL {
  const cursor = sql`(select ${requestLog.createdAt}, ${requestLog.id} from ${requestLog} where ${requestLog.id} = ${id} and ${requestLog.projectId} = ${projectId})`;
  return sql`(${requestLog.createdAt}, ${requestLog.id}) < ${cursor}`;
}

/** A source as typed (`cdn.example.com/a.jpg`, `https://…`, `local/…`) named as the log names it. */
function nameOf(text: string): string {
  try {
    return sourceName(parseSource(text));
  } catch (error) {
    if (!isAppError(error)) throw error;
    return text;
  }
}

/**
 * The chosen rows in full, with their key's name. The page is chosen from request_log alone, then
 * named: joined first, a planner without statistics (PGlite runs no autovacuum) hashed every row of
 * the range to sort them.
 */
async function named(db: Database, chosen: ReadonlyArray<{ id: number }>) {
  if (chosen.length === 0) return [];
  return db
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
      unreached: requestLog.unreached,
      outputBytes: requestLog.outputBytes,
      processingMs: requestLog.processingMs,
      cache: requestLog.cache,
      keyName: apiKeys.name,
    })
    .from(requestLog)
    .leftJoin(apiKeys, eq(apiKeys.id, requestLog.apiKeyId))
    .where(
      inArray(
        requestLog.id,
        chosen.map((row) => row.id),
      ),
    )
    .orderBy(desc(requestLog.createdAt), desc(requestLog.id));
}

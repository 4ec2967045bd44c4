import { and, desc, eq, gte, isNotNull, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { requestLog } from "@/server/db/schema";

/** How far back the confirmation looks. */
export const IMPACT_DAYS = 7;
/** Distinct operation segments read, most used first: the count is then a lower bound past it. */
const MAX_SEGMENTS = 2000;
/**
 * Served images looked at, newest first: the week of a busy project holds a million rows (120 a
 * minute per instance), and a confirmation needs the shape of the traffic, not every row of it.
 */
export const IMPACT_ROWS = 20_000;

export interface ServedImpact {
  days: number;
  /** Images served over the days (sampled successes weighed back up), of one key where one was named. */
  requests: number;
  /** Of those, the ones the rule would have refused. */
  refused: number;
  /** The most used of those segments, for the admin to recognise. */
  examples: string[];
  /** More distinct segments than were read: `refused` is at least this. */
  partial: boolean;
  /** The newest IMPACT_ROWS served images were judged, going back to this time; null: all of the days. */
  lookedBackTo: Date | null;
}

/**
 * The IMPACT_ROWS newest images served over the last IMPACT_DAYS, newest first: read off the
 * (project, status, time) index, past no row of another status (schema/usage.ts).
 */
export function newestServed(db: Database, projectId: string, now: Date) {
  return db
    .select({
      operations: requestLog.operations,
      apiKeyId: requestLog.apiKeyId,
      weight: requestLog.weight,
      createdAt: requestLog.createdAt,
    })
    .from(requestLog)
    .where(
      and(
        eq(requestLog.projectId, projectId),
        eq(requestLog.status, "success"),
        gte(requestLog.createdAt, new Date(now.getTime() - IMPACT_DAYS * 86_400_000)),
        isNotNull(requestLog.operations),
      ),
    )
    .orderBy(desc(requestLog.createdAt), desc(requestLog.id))
    .limit(IMPACT_ROWS);
}

/**
 * What a rule over operations segments would have refused of the project's newest served images, or of
 * one key's among them: the same rows are read whatever the key (the project's newest, on its index),
 * so a key with little traffic does not make the statement walk the whole week.
 */
export async function servedImpact(
  db: Database,
  projectId: string,
  refuses: (segment: string) => boolean,
  options: { now?: Date; apiKeyId?: string } = {},
): Promise<ServedImpact> {
  const served = newestServed(db, projectId, options.now ?? new Date()).as("served");
  const requests = options.apiKeyId
    ? sql<number>`coalesce(sum(${served.weight}) filter (where ${served.apiKeyId} = ${options.apiKeyId}), 0)::float8`
    : sql<number>`sum(${served.weight})::float8`;
  const rows = await db
    .select({
      operations: served.operations,
      requests,
      read: sql<number>`sum(count(*)) over ()`.mapWith(Number),
      oldest: sql<Date>`min(min(${served.createdAt})) over ()`.mapWith((value: string | Date) => new Date(value)),
    })
    .from(served)
    .groupBy(served.operations)
    .orderBy(desc(requests), served.operations)
    .limit(MAX_SEGMENTS + 1);
  let total = 0;
  let refused = 0;
  const examples: string[] = [];
  for (const row of rows.slice(0, MAX_SEGMENTS)) {
    if (row.requests === 0) continue;
    total += row.requests;
    if (!refuses(row.operations!)) continue;
    refused += row.requests;
    if (examples.length < 3) examples.push(row.operations!);
  }
  return {
    days: IMPACT_DAYS,
    requests: Math.round(total),
    refused: Math.round(refused),
    examples,
    // Past the segments read, only ones that count (another key's weigh nothing) leave the count short.
    partial: (rows[MAX_SEGMENTS]?.requests ?? 0) > 0,
    lookedBackTo: rows[0] && rows[0].read >= IMPACT_ROWS ? rows[0].oldest : null,
  };
}

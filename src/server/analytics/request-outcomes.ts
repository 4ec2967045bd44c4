import { and, gte, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { requestStats } from "@/server/db/schema";
import { hourlyStatsSince } from "@/server/usage/hourly-window";
import { outcomeOf, type Outcome } from "@/server/usage/outcomes";
import { rangeInstants, type DateRange } from "./date-range";
import { readByProjects, type OutcomeScope } from "./scope-projects";

/** Ranges up to a week are drawn by the hour (≤ 168 bars), longer ones by the day. */
export const HOURLY_UP_TO_DAYS = 7;

export type OutcomeCounts = Record<Outcome, number>;
export interface OutcomeBucket extends OutcomeCounts {
  /** Start of the UTC hour or day, ISO 8601. */
  start: string;
}

export interface RequestOutcomes {
  granularity: "hour" | "day";
  buckets: OutcomeBucket[];
  totals: OutcomeCounts & { all: number };
}

export type { OutcomeScope };

const zero = (): OutcomeCounts => ({ served: 0, cached: 0, refused: 0, failed: 0 });

/**
 * Every request of the range by outcome, per hour or day, from request_stats (hourly rows, so the
 * same totals as the request log's statistics). Buckets without traffic are zeros; hours after `now`
 * are left out rather than drawn as a quiet afternoon that has not happened yet.
 */
export async function requestOutcomes(
  db: Database,
  scope: OutcomeScope,
  range: DateRange,
  now: Date,
  signal?: AbortSignal,
): Promise<RequestOutcomes> {
  const { start, end } = rangeInstants(range);
  // Hours only where they are still kept: an older week was folded into days (stats-compaction.ts).
  const granularity = range.days <= HOURLY_UP_TO_DAYS && start >= hourlyStatsSince(now) ? "hour" : "day";
  // The unit inline, not a parameter: select and group by must be the same expression to Postgres.
  const bucket = sql<Date>`date_trunc('${sql.raw(granularity)}', ${requestStats.hour}, 'UTC')`;
  const rows = await readByProjects(
    db,
    scope,
    (projectIds) =>
      db
        .select({
          bucket,
          status: requestStats.status,
          cache: requestStats.cache,
          requests: sql<number>`sum(${requestStats.requests})::float8`,
        })
        .from(requestStats)
        .where(
          and(inArray(requestStats.projectId, projectIds), gte(requestStats.hour, start), lt(requestStats.hour, end)),
        )
        .groupBy(bucket, requestStats.status, requestStats.cache),
    signal,
  );

  const step = granularity === "hour" ? 3_600_000 : 86_400_000;
  const last = Math.min(end.getTime(), Math.floor(now.getTime() / step) * step + step);
  const buckets = new Map<number, OutcomeBucket>();
  for (let t = start.getTime(); t < last; t += step) {
    buckets.set(t, { start: new Date(t).toISOString(), ...zero() });
  }
  const totals = { ...zero(), all: 0 };
  for (const row of rows) {
    const outcome = outcomeOf(row.status, row.cache);
    const at = new Date(row.bucket).getTime();
    const entry = buckets.get(at) ?? { start: new Date(at).toISOString(), ...zero() };
    entry[outcome] += row.requests;
    buckets.set(at, entry);
    totals[outcome] += row.requests;
    totals.all += row.requests;
  }
  return { granularity, buckets: [...buckets.values()].sort((a, b) => a.start.localeCompare(b.start)), totals };
}

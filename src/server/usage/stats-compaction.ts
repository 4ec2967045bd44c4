import { and, asc, gt, gte, inArray, lt, ne, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { rowsOf } from "@/server/db/rows-of";
import { projects, requestSourceStats, requestStats } from "@/server/db/schema";
import { hourlyStatsSince } from "./hourly-window";
import { OTHER_SOURCES, SUMMED } from "./request-stats";

export { HOURLY_STATS_DAYS, hourlyStatsSince } from "./hourly-window";

/** Sources a finished day keeps by name per project; the rest are folded into OTHER_SOURCES. */
export const TOP_SOURCES_PER_DAY = 50;
/**
 * Days looked at behind the newest one to fold: the daily maintenance folds the day that just left the
 * window; a week catches up after maintenance stopped for a while, and never scans all 90 days.
 */
const CATCH_UP_DAYS = 7;
const DAY_MS = 86_400_000;
/** Projects folded per statement: each statement stays short (the embedded database runs one at a time). */
const PROJECTS_PER_STATEMENT = 50;

const midnight = (at: number) => new Date(Math.floor(at / DAY_MS) * DAY_MS);

/**
 * Folds the hours of each day that left the hourly window into its midnight row, a few projects at a
 * time (inProjectGroups): the hours are deleted and their sums added to the midnight row in one statement (a concurrent
 * reader sees the day before or after, never half). Returns the hour rows folded.
 */
export async function compactRequestStats(db: Database, now: Date): Promise<number> {
  const before = hourlyStatsSince(now);
  const names = SUMMED.map((column) => sql.identifier(requestStats[column].name));
  let folded = 0;
  for (let back = CATCH_UP_DAYS; back >= 1; back--) {
    const day = new Date(before.getTime() - back * DAY_MS);
    const next = new Date(day.getTime() + DAY_MS);
    const hours = and(gte(requestStats.hour, day), lt(requestStats.hour, next), ne(requestStats.hour, day));
    folded += await inProjectGroups(db, async (ids) => {
      const result = await db.execute(sql`
        with moved as (
          delete from ${requestStats} where ${inArray(requestStats.projectId, ids)} and ${hours} returning *
        ), added as (
          insert into ${requestStats} (hour, project_id, status, cache, ${sql.join(names, sql`, `)})
          select ${day.toISOString()}::timestamptz, project_id, status, cache, ${sql.join(
            names.map((name) => sql`sum(${name})`),
            sql`, `,
          )}
          from moved group by project_id, status, cache order by project_id, status, cache
          on conflict (project_id, hour, status, cache) do update set ${sql.join(
            names.map((name) => sql`${name} = ${requestStats}.${name} + excluded.${name}`),
            sql`, `,
          )}
        )
        select count(*)::int as folded from moved`);
      return rowsOf<{ folded: number }>(result)[0]?.folded ?? 0;
    });
  }
  return folded;
}

/**
 * Keeps the TOP_SOURCES_PER_DAY sources of most bytes of each project and finished day (before
 * yesterday, so no batch still adds to it), folding the others into OTHER_SOURCES: the top sources of
 * a range then read at most that many rows a day, whatever number of names the traffic used.
 */
export async function compactSourceStats(db: Database, now: Date): Promise<number> {
  const s = requestSourceStats;
  const yesterday = midnight(now.getTime() - DAY_MS).getTime();
  let folded = 0;
  for (let back = CATCH_UP_DAYS; back >= 1; back--) {
    const day = new Date(yesterday - back * DAY_MS).toISOString().slice(0, 10);
    folded += await inProjectGroups(db, async (ids) => {
      const result = await db.execute(sql`
        with ranked as (
          select project_id, source_hash, row_number() over (
            partition by project_id order by output_bytes desc, requests desc, source_hash
          ) as rank
          from ${s} where ${inArray(s.projectId, ids)} and ${s.day} = ${day} and ${s.sourceHash} <> ${OTHER_SOURCES.hash}
        ), moved as (
          delete from ${s} using ranked
          where ${s.day} = ${day} and ${s.projectId} = ranked.project_id and ${s.sourceHash} = ranked.source_hash
            and ranked.rank > ${TOP_SOURCES_PER_DAY}
          returning ${s.projectId} as project_id, ${s.requests} as requests, ${s.outputBytes} as output_bytes
        ), added as (
          insert into ${s} (day, project_id, source_hash, source_url, requests, output_bytes)
          select ${day}::date, project_id, ${OTHER_SOURCES.hash}, ${OTHER_SOURCES.label}, sum(requests), sum(output_bytes)
          from moved group by project_id order by project_id
          on conflict (project_id, day, source_hash) do update set
            requests = ${s}.requests + excluded.requests, output_bytes = ${s}.output_bytes + excluded.output_bytes
        )
        select count(*)::int as folded from moved`);
      return rowsOf<{ folded: number }>(result)[0]?.folded ?? 0;
    });
  }
  return folded;
}

/**
 * Runs `fold` on every project, PROJECTS_PER_STATEMENT at a time (walked by id), and adds up what it
 * folded: each statement reads the statistics' primary key for its projects and day, never the table.
 */
async function inProjectGroups(db: Database, fold: (ids: string[]) => Promise<number>): Promise<number> {
  let total = 0;
  let after: string | null = null;
  for (;;) {
    const ids: string[] = (
      await db
        .select({ id: projects.id })
        .from(projects)
        .where(after ? gt(projects.id, after) : undefined)
        .orderBy(asc(projects.id))
        .limit(PROJECTS_PER_STATEMENT)
    ).map((row) => row.id);
    if (ids.length === 0) return total;
    total += await fold(ids);
    after = ids.at(-1)!;
  }
}

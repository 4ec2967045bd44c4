import { inArray, sql } from "drizzle-orm";
import type { DateRangeInput } from "@/lib/schemas/date-range";
import type { Database } from "@/server/db/client";
import { requestStats } from "@/server/db/schema";
import { resolveDateRange, type DateRange } from "./date-range";
import { readByProjects, type OutcomeScope } from "./scope-projects";

/**
 * The UTC day of the scope's first request still in the statistics (kept 91 days), or null before any:
 * one probe of request_stats' primary key per project.
 */
export async function firstRequestDay(db: Database, scope: OutcomeScope): Promise<string | null> {
  const firsts = await readByProjects(db, scope, (ids) =>
    db
      .select({ first: sql<string | null>`to_char(min(${requestStats.hour}) at time zone 'UTC', 'YYYY-MM-DD')` })
      .from(requestStats)
      .where(inArray(requestStats.projectId, ids)),
  );
  const days = firsts.flatMap((row) => (row.first ? [row.first] : []));
  return days.length > 0 ? days.sort()[0]! : null;
}

/** The range a usage page asked for, the `recent` preset resolved against the scope's first request. */
export async function usageRange(
  db: Database,
  scope: OutcomeScope,
  input: DateRangeInput,
  now: Date,
): Promise<DateRange> {
  const recent = "preset" in input && input.preset === "recent";
  return resolveDateRange(input, now, undefined, recent ? await firstRequestDay(db, scope) : undefined);
}

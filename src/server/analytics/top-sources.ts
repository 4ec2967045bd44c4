import { and, desc, gte, inArray, lte, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { requestSourceStats } from "@/server/db/schema";
import type { DateRange } from "./date-range";
import { readByProjects, type OutcomeScope } from "./scope-projects";
import { sum } from "./sums";

const TOP = 10;

/**
 * The ten sources (of a project: the same name in two projects is two sources) that cost the most bytes
 * delivered over the range (request_source_stats). Finished days keep their top sources by name and
 * the rest as one "(other sources)" row (stats-compaction.ts), which is listed like a source.
 */
export async function topSources(
  db: Database,
  scope: OutcomeScope,
  range: Pick<DateRange, "from" | "to">,
  signal?: AbortSignal,
) {
  const s = requestSourceStats;
  const rows = await readByProjects(
    db,
    scope,
    (projectIds) =>
      db
        .select({
          sourceUrl: sql<string>`min(${s.sourceUrl})`,
          requests: sum(s.requests),
          outputBytes: sum(s.outputBytes),
        })
        .from(s)
        .where(and(inArray(s.projectId, projectIds), gte(s.day, range.from), lte(s.day, range.to)))
        .groupBy(s.projectId, s.sourceHash)
        .orderBy(desc(sql`3`), sql`1`)
        .limit(TOP),
    signal,
    // A project's days are up to a thousand sources today and fifty a finished day: two per statement.
    2,
  );
  return rows.sort((a, b) => b.outputBytes - a.outputBytes || a.sourceUrl.localeCompare(b.sourceUrl)).slice(0, TOP);
}

import { and, gte, inArray, lte, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { requestSourceStats } from "@/server/db/schema";
import type { DateRange } from "./date-range";
import { scopeProjects, type OutcomeScope } from "./request-outcomes";
import { sum } from "./sums";

/** The ten sources that cost the most bytes delivered over the range (request_source_stats). */
export function topSources(db: Database, scope: OutcomeScope, range: Pick<DateRange, "from" | "to">) {
  const s = requestSourceStats;
  return db
    .select({ sourceUrl: sql<string>`min(${s.sourceUrl})`, requests: sum(s.requests), outputBytes: sum(s.outputBytes) })
    .from(s)
    .where(and(inArray(s.projectId, scopeProjects(db, scope)), gte(s.day, range.from), lte(s.day, range.to)))
    .groupBy(s.sourceHash)
    .orderBy(sql`3 desc`, sql`1`)
    .limit(10);
}

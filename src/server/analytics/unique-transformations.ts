import { and, between, inArray, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { requestVariantDays } from "@/server/db/schema";
import { DAY_MS, dayOf, type DateRange } from "./date-range";
import { scopeProjects, type OutcomeScope } from "./request-outcomes";

/** The window hosted image services count unique transformations over. */
export const UNIQUE_WINDOW_DAYS = 30;

/**
 * The distinct variants (source, canonical operations, negotiated format) the scope's projects
 * delivered in the 30 days ending on the range's last day: the unit Cloudinary, Vercel and others bill
 * by, so an admin can compare. A variant served a thousand times, or on ten of those days, is one.
 */
export async function uniqueTransformations(db: Database, scope: OutcomeScope, range: Pick<DateRange, "to">) {
  const to = range.to;
  const from = dayOf(Date.parse(`${to}T00:00:00Z`) - (UNIQUE_WINDOW_DAYS - 1) * DAY_MS);
  const v = requestVariantDays;
  const [row] = await db
    .select({ count: sql<number>`count(distinct (${v.projectId}, ${v.variant}))::float8` })
    .from(v)
    .where(and(inArray(v.projectId, scopeProjects(db, scope)), between(v.day, from, to)));
  return { from, to, count: row?.count ?? 0 };
}

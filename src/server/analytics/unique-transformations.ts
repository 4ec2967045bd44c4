import { and, between, eq, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { requestVariantDays } from "@/server/db/schema";
import { MORE_VARIANTS } from "@/server/usage/variant-days";
import { DAY_MS, dayOf, type DateRange } from "./date-range";
import { readByProjects, type OutcomeScope } from "./scope-projects";

/** The window hosted image services count unique transformations over. */
export const UNIQUE_WINDOW_DAYS = 30;

/**
 * The distinct variants (source, canonical operations, negotiated format) the scope's projects
 * delivered in the 30 days ending on the range's last day: the unit Cloudinary, Vercel and others bill
 * by, so an admin can compare. A variant served a thousand times, or on ten of those days, is one.
 * `atLeast`: a day had more new variants than one instance records (daily-allowance.ts), so the count is
 * a lower bound.
 */
export async function uniqueTransformations(
  db: Database,
  scope: OutcomeScope,
  range: Pick<DateRange, "to">,
  signal?: AbortSignal,
) {
  const to = range.to;
  const from = dayOf(Date.parse(`${to}T00:00:00Z`) - (UNIQUE_WINDOW_DAYS - 1) * DAY_MS);
  const v = requestVariantDays;
  // A project per statement: distinct variants of different projects add up, and one project's 30 days
  // are at most its days' allowances (daily-allowance.ts), however many the team has.
  const parts = await readByProjects(
    db,
    scope,
    ([projectId]) =>
      db
        .select({
          count: sql<number>`count(distinct ${v.variant}) filter (where ${v.variant} <> ${MORE_VARIANTS})::float8`,
          more: sql<boolean>`coalesce(bool_or(${v.variant} = ${MORE_VARIANTS}), false)`,
        })
        .from(v)
        .where(and(eq(v.projectId, projectId!), between(v.day, from, to))),
    signal,
    1,
  );
  return {
    from,
    to,
    count: parts.reduce((all, part) => all + part.count, 0),
    atLeast: parts.some((part) => part.more),
  };
}

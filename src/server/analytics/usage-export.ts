import { and, between, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import type { ReadOn } from "@/server/db/dashboard-reads";
import { projects, requestStats, requestVariantDays, usageRecord } from "@/server/db/schema";
import type { CsvCell } from "@/server/export/csv-stream";
import { datesOf, rangeInstants, type DateRange } from "./date-range";
import { MORE_VARIANTS } from "@/server/usage/variant-days";
import { OUTCOMES, outcomeOf } from "@/server/usage/outcomes";
import type { OutcomeCounts } from "./request-outcomes";
import { readInGroups } from "./scope-projects";

export const USAGE_CSV_HEADER = [
  "date (UTC)",
  "project",
  "delivered",
  "bytes delivered",
  "requests",
  "served",
  "cached",
  "refused",
  "failed",
  "unique transformations",
] as const;

/** A week per page: each statement reads a week of a few projects (scope-projects.ts), never a year of fifty. */
const DAYS_PER_PAGE = 7;

/** Whose usage: one project, or every project of a team. */
export type UsageExportScope = { teamId: string; projectId?: string };

/**
 * Usage by UTC day and project, a week at a time: what was metered (delivered and bytes, the usage
 * ledger's totals, as the usage pages and billing read them) and every request by outcome (the request
 * statistics, as the pages' outcome chart) and the distinct variants delivered that day (a day's unique
 * transformations: the 30-day count is not their sum). A day and project with nothing is left out. The
 * statistics are kept REQUEST_STATS_RETENTION_DAYS: before `statsSince` their cells are empty, not zero.
 */
export async function* usageCsvPages(
  read: ReadOn,
  scope: UsageExportScope,
  range: DateRange,
  statsSince: string,
  signal?: AbortSignal,
): AsyncGenerator<CsvCell[][]> {
  const named = await read((db) =>
    db
      .select({ id: projects.id, slug: projects.slug })
      .from(projects)
      .where(and(eq(projects.teamId, scope.teamId), scope.projectId ? eq(projects.id, scope.projectId) : undefined)),
  );
  if (named.length === 0) return;
  const slugs = new Map(named.map((p) => [p.id, p.slug]));
  const ids = [...slugs.keys()];
  const days = datesOf(range);
  for (let i = 0; i < days.length; i += DAYS_PER_PAGE) {
    const part = days.slice(i, i + DAYS_PER_PAGE);
    const week = { from: part[0]!, to: part.at(-1)! };
    const rows = (await readInGroups(ids, (group) => read((db) => pageOf(db, group, week)), signal)).map((row) => ({
      ...row,
      project: slugs.get(row.projectId) ?? row.projectId,
    }));
    rows.sort((a, b) => a.date.localeCompare(b.date) || a.project.localeCompare(b.project));
    yield rows.map((row) => [
      row.date,
      row.project,
      row.delivered,
      row.bytes,
      ...(row.date < statsSince
        ? [null, ...OUTCOMES.map(() => null), null]
        : [OUTCOMES.reduce((all, o) => all + row[o], 0), ...OUTCOMES.map((o) => row[o]), row.variants]),
    ]);
  }
}

type DayRow = { date: string; projectId: string; delivered: number; bytes: number; variants: number } & OutcomeCounts;

async function pageOf(db: Database, projectIds: string[], days: { from: string; to: string }): Promise<DayRow[]> {
  const { start, end } = rangeInstants(days);
  // The UTC day whatever the session's time zone (to_char of a timestamptz would use the session's).
  const day = sql<string>`to_char(${requestStats.hour} at time zone 'UTC', 'YYYY-MM-DD')`;
  const v = requestVariantDays;
  // One after another: each statement short (the embedded database runs one at a time for everyone).
  const metered = await db
    .select({
      date: usageRecord.date,
      projectId: usageRecord.projectId,
      delivered: sql<number>`sum(${usageRecord.requests})::float8`,
      bytes: sql<number>`sum(${usageRecord.bytes})::float8`,
    })
    .from(usageRecord)
    .where(and(inArray(usageRecord.projectId, projectIds), between(usageRecord.date, days.from, days.to)))
    .groupBy(usageRecord.date, usageRecord.projectId);
  const requests = await db
    .select({
      date: day,
      projectId: requestStats.projectId,
      status: requestStats.status,
      cache: requestStats.cache,
      requests: sql<number>`sum(${requestStats.requests})::float8`,
    })
    .from(requestStats)
    .where(and(inArray(requestStats.projectId, projectIds), gte(requestStats.hour, start), lt(requestStats.hour, end)))
    .groupBy(day, requestStats.projectId, requestStats.status, requestStats.cache);
  const variants = await db
    // A day past its allowance (daily-allowance.ts) counts what was recorded: a lower bound.
    .select({
      date: v.day,
      projectId: v.projectId,
      variants: sql<number>`count(*) filter (where ${v.variant} <> ${MORE_VARIANTS})::float8`,
    })
    .from(v)
    .where(and(inArray(v.projectId, projectIds), between(v.day, days.from, days.to)))
    .groupBy(v.day, v.projectId);
  const rows = new Map<string, DayRow>();
  const at = (date: string, projectId: string) => {
    const key = `${date} ${projectId}`;
    let row = rows.get(key);
    if (!row) {
      row = { date, projectId, delivered: 0, bytes: 0, variants: 0, served: 0, cached: 0, refused: 0, failed: 0 };
      rows.set(key, row);
    }
    return row;
  };
  for (const m of metered) Object.assign(at(m.date, m.projectId), { delivered: m.delivered, bytes: m.bytes });
  for (const r of requests) at(r.date, r.projectId)[outcomeOf(r.status, r.cache)] += r.requests;
  for (const d of variants) at(d.date, d.projectId).variants = d.variants;
  return [...rows.values()];
}

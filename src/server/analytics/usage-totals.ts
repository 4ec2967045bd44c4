import { and, between, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys, projects, usageRecord } from "@/server/db/schema";
import { datesOf, type DateRange } from "./date-range";
import { readByProjects } from "./scope-projects";

export interface Totals {
  requests: number;
  bytes: number;
}

export interface DailyPoint extends Totals {
  date: string;
}

// sum(bigint) is numeric, which drivers hand back as text: float8 comes back as a number, exact to 2^53.
const requests = sql<number>`coalesce(sum(${usageRecord.requests}), 0)::float8`;
const bytes = sql<number>`coalesce(sum(${usageRecord.bytes}), 0)::float8`;

function inDates(from: string, to: string) {
  return between(usageRecord.date, from, to);
}

/** Per-day totals with every day of the range present (zero when nothing was served). */
function fillSeries(range: DateRange, rows: readonly DailyPoint[]): DailyPoint[] {
  const byDate = new Map(rows.map((r) => [r.date, r]));
  return datesOf(range).map((date) => ({
    date,
    requests: byDate.get(date)?.requests ?? 0,
    bytes: byDate.get(date)?.bytes ?? 0,
  }));
}

export async function projectUsage(db: Database, projectId: string, range: DateRange) {
  const scope = (from: string, to: string) => and(eq(usageRecord.projectId, projectId), inDates(from, to));
  const [daily, [previous], byKey] = await Promise.all([
    db
      .select({ date: usageRecord.date, requests, bytes })
      .from(usageRecord)
      .where(scope(range.from, range.to))
      .groupBy(usageRecord.date),
    db.select({ requests, bytes }).from(usageRecord).where(scope(range.previous.from, range.previous.to)),
    db
      .select({ apiKeyId: apiKeys.id, name: apiKeys.name, publicKey: apiKeys.publicKey, requests, bytes })
      .from(usageRecord)
      .innerJoin(apiKeys, eq(apiKeys.id, usageRecord.apiKeyId))
      .where(scope(range.from, range.to))
      .groupBy(apiKeys.id, apiKeys.name, apiKeys.publicKey),
  ]);
  const series = fillSeries(range, daily);
  return {
    series,
    totals: sum(series),
    previous: previous ?? { requests: 0, bytes: 0 },
    byKey: byKey.sort((a, b) => b.requests - a.requests),
  };
}

/** A team's totals, a few projects per statement (scope-projects.ts), whatever the team's size. */
export async function teamUsage(db: Database, teamId: string, range: DateRange, signal?: AbortSignal) {
  const scope = { teamId };
  const byDate = (ids: string[], from: string, to: string) =>
    db
      .select({ date: usageRecord.date, requests, bytes })
      .from(usageRecord)
      .where(and(inArray(usageRecord.projectId, ids), inDates(from, to)))
      .groupBy(usageRecord.date);
  const daily = await readByProjects(db, scope, (ids) => byDate(ids, range.from, range.to), signal);
  const previous = await readByProjects(
    db,
    scope,
    (ids) => byDate(ids, range.previous.from, range.previous.to),
    signal,
  );
  const byProject = await readByProjects(
    db,
    scope,
    (ids) =>
      db
        .select({ projectId: projects.id, slug: projects.slug, name: projects.name, requests, bytes })
        .from(projects)
        .leftJoin(usageRecord, and(eq(usageRecord.projectId, projects.id), inDates(range.from, range.to)))
        .where(inArray(projects.id, ids))
        .groupBy(projects.id, projects.slug, projects.name),
    signal,
  );
  const series = fillSeries(range, addedByDate(daily));
  return {
    series,
    totals: sum(series),
    previous: sum(previous),
    byProject: byProject.sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name)),
  };
}

/** Rows of several groups of projects, one per date. */
function addedByDate(rows: readonly DailyPoint[]): DailyPoint[] {
  const byDate = new Map<string, DailyPoint>();
  for (const row of rows) {
    const sums = byDate.get(row.date) ?? { date: row.date, requests: 0, bytes: 0 };
    byDate.set(row.date, { date: row.date, requests: sums.requests + row.requests, bytes: sums.bytes + row.bytes });
  }
  return [...byDate.values()];
}

function sum(rows: readonly Totals[]): Totals {
  return rows.reduce((acc, r) => ({ requests: acc.requests + r.requests, bytes: acc.bytes + r.bytes }), {
    requests: 0,
    bytes: 0,
  });
}

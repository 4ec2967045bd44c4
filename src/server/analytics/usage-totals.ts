import { and, between, eq, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys, projects, usageRecord } from "@/server/db/schema";
import { datesOf, type DateRange } from "./date-range";

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

export async function teamUsage(db: Database, teamId: string, range: DateRange) {
  const teamRows = (from: string, to: string) =>
    db
      .select({ date: usageRecord.date, requests, bytes })
      .from(usageRecord)
      .innerJoin(projects, eq(projects.id, usageRecord.projectId))
      .where(and(eq(projects.teamId, teamId), inDates(from, to)));
  const [daily, previous, byProject] = await Promise.all([
    teamRows(range.from, range.to).groupBy(usageRecord.date),
    teamRows(range.previous.from, range.previous.to).groupBy(usageRecord.date),
    db
      .select({ projectId: projects.id, slug: projects.slug, name: projects.name, requests, bytes })
      .from(projects)
      .leftJoin(usageRecord, and(eq(usageRecord.projectId, projects.id), inDates(range.from, range.to)))
      .where(eq(projects.teamId, teamId))
      .groupBy(projects.id, projects.slug, projects.name),
  ]);
  const series = fillSeries(range, daily);
  return {
    series,
    totals: sum(series),
    previous: sum(previous),
    byProject: byProject.sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name)),
  };
}

function sum(rows: readonly Totals[]): Totals {
  return rows.reduce((acc, r) => ({ requests: acc.requests + r.requests, bytes: acc.bytes + r.bytes }), {
    requests: 0,
    bytes: 0,
  });
}

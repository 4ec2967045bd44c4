import { and, gte, inArray, lte } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { betweenStatements } from "@/server/db/newest-first-scan";
import { requestQualityStats } from "@/server/db/schema";
import type { DateRange } from "./date-range";
import type { OutcomeCounts } from "./request-outcomes";
import { readByProjects, type OutcomeScope } from "./scope-projects";
import { sum } from "./sums";
import { topSources } from "./top-sources";
import { uniqueTransformations } from "./unique-transformations";

export interface FormatSavings {
  format: string;
  /** Image answers in this format (304s and info's JSON are not images), and their bytes. */
  delivered: number;
  outputBytes: number;
  /** Of those, the answers that fetched their original: both sizes known. */
  measured: number;
  originalBytes: number;
  measuredOutputBytes: number;
  savedBytes: number;
  /** 1 − output ÷ originals over the measured answers; null where none fetched its original. */
  savedShare: number | null;
}

/**
 * What the service saved over the range, for one project or a whole team: bytes against the originals
 * by output format (over the answers that fetched their original: a cache hit never sees it), the
 * unique transformations of the 30 days ending with the range, and the sources that cost the most
 * bytes (the transforms a cache spared come from the outcomes: workOf). From the request statistics (every
 * request, per hour or day), so it agrees with the request log.
 */
export async function savingsReport(db: Database, scope: OutcomeScope, range: DateRange, signal?: AbortSignal) {
  const q = requestQualityStats;
  // One after another: each reads the scope a few projects per statement (scope-projects.ts).
  const formats = await readByProjects(
    db,
    scope,
    (ids) =>
      db
        .select({
          format: q.format,
          delivered: sum(q.requests),
          outputBytes: sum(q.outputBytes),
          measured: sum(q.measuredRequests),
          originalBytes: sum(q.measuredSourceBytes),
          measuredOutputBytes: sum(q.measuredOutputBytes),
        })
        .from(q)
        .where(and(inArray(q.projectId, ids), gte(q.day, range.from), lte(q.day, range.to)))
        .groupBy(q.format),
    signal,
  );
  await betweenStatements(signal);
  const sources = await topSources(db, scope, range, signal);
  await betweenStatements(signal);
  const unique = await uniqueTransformations(db, scope, range, signal);
  const byFormat: FormatSavings[] = [...sumByFormat(formats).values()]
    .map((f) => ({
      ...f,
      savedBytes: f.originalBytes - f.measuredOutputBytes,
      savedShare: f.originalBytes > 0 ? 1 - f.measuredOutputBytes / f.originalBytes : null,
    }))
    .sort((a, b) => b.delivered - a.delivered || a.format.localeCompare(b.format));
  const totals = byFormat.reduce(
    (acc, f) => ({
      delivered: acc.delivered + f.delivered,
      outputBytes: acc.outputBytes + f.outputBytes,
      measured: acc.measured + f.measured,
      originalBytes: acc.originalBytes + f.originalBytes,
      measuredOutputBytes: acc.measuredOutputBytes + f.measuredOutputBytes,
    }),
    { delivered: 0, outputBytes: 0, measured: 0, originalBytes: 0, measuredOutputBytes: 0 },
  );
  return {
    byFormat,
    totals: {
      ...totals,
      savedBytes: totals.originalBytes - totals.measuredOutputBytes,
      savedShare: totals.originalBytes > 0 ? 1 - totals.measuredOutputBytes / totals.originalBytes : null,
    },
    uniqueTransformations: unique,
    topSources: sources,
  };
}

/**
 * The transforms made against the answers a cache tier spared: the outcome chart's served and cached
 * (already read for the page), not a query of their own.
 */
export function workOf({ served, cached }: Pick<OutcomeCounts, "served" | "cached">) {
  return { transforms: served, spared: cached, sparedShare: served + cached > 0 ? cached / (served + cached) : null };
}

export type SavingsReport = Awaited<ReturnType<typeof savingsReport>> & { work: ReturnType<typeof workOf> };

type FormatSums = Omit<FormatSavings, "savedBytes" | "savedShare">;

/** Each group of projects' rows per format, added up into one row per format. */
function sumByFormat(rows: readonly FormatSums[]): Map<string, FormatSums> {
  const byFormat = new Map<string, FormatSums>();
  for (const row of rows) {
    const sums = byFormat.get(row.format);
    if (!sums) byFormat.set(row.format, { ...row });
    else
      for (const key of ["delivered", "outputBytes", "measured", "originalBytes", "measuredOutputBytes"] as const)
        sums[key] += row[key];
  }
  return byFormat;
}

import { createHash } from "node:crypto";
import type { SQLWrapper } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { PROCESSING_BOUNDS_MS, requestSourceStats, requestStats } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { added, inKeyOrder } from "./batch-rows";
import { createDailyAllowance, type DailyAllowance } from "./daily-allowance";
import { loggedSourceText } from "./logged-source";
import { createQualityRows } from "./quality-stats";
import { createMinuteRows } from "./minute-stats";
import { createVariantRows } from "./variant-days";

/** The database, or a transaction on it. */
export type StatsWriter = Pick<Database, "insert">;

type StatsRow = typeof requestStats.$inferInsert;
type SourceRow = typeof requestSourceStats.$inferInsert;
type Histogram = Pick<StatsRow, HistogramColumn>;
export type HistogramColumn = (typeof HISTOGRAM_COLUMNS)[number];

/** request_stats' histogram columns, one per PROCESSING_BOUNDS_MS entry and `over`, in order. */
export const HISTOGRAM_COLUMNS = [
  "le10",
  "le25",
  "le50",
  "le100",
  "le250",
  "le500",
  "le1000",
  "le2500",
  "le5000",
  "over",
] as const satisfies readonly (keyof StatsRow)[];

/** The columns a row adds up: a batch adds its counts to the stored ones, and a day folds its hours. */
export const SUMMED = [
  "requests",
  "processingMs",
  "measuredRequests",
  "sourceBytes",
  "outputBytes",
  ...HISTOGRAM_COLUMNS,
] as const;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function bucketOf(ms: number): HistogramColumn {
  const index = PROCESSING_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return HISTOGRAM_COLUMNS[index === -1 ? HISTOGRAM_COLUMNS.length - 1 : index]!;
}

const emptyHistogram = (): Histogram =>
  Object.fromEntries(HISTOGRAM_COLUMNS.map((column) => [column, 0])) as Required<Histogram>;

/** The distinct keys one instance adds per project and day (daily-allowance.ts): sources, variants. */
export interface StatsAllowances {
  sources: DailyAllowance;
  variants: DailyAllowance;
}

export const SOURCES_PER_PROJECT_DAY = 1000;
export const VARIANTS_PER_PROJECT_DAY = 5000;

export function createStatsAllowances(): StatsAllowances {
  return {
    sources: createDailyAllowance(SOURCES_PER_PROJECT_DAY),
    variants: createDailyAllowance(VARIANTS_PER_PROJECT_DAY),
  };
}

/** Where a project-day's sources past its allowance are counted together: top sources shows them as one. */
export const OTHER_SOURCES = { hash: "other", label: "(other sources)" } as const;

/**
 * Counts outcomes of projects into per-hour and per-day rows in memory, then adds them to
 * request_stats and request_source_stats in one upsert each. Rows go in key order, so two writers
 * cannot deadlock on PostgreSQL; a batch never holds one key twice (the upsert would refuse it).
 */
export function createStatsBatch(allowances: StatsAllowances) {
  const hours = new Map<string, StatsRow>();
  const sources = new Map<string, SourceRow>();
  const qualities = createQualityRows();
  const variants = createVariantRows(allowances.variants);
  const minutes = createMinuteRows();
  function addSource(projectId: string, sourceUrl: string, outcome: RequestOutcome, at: Date): void {
    const day = at.toISOString().slice(0, 10);
    const hash = sha256(sourceUrl);
    const own = allowances.sources.admits(projectId, day, hash);
    const sourceHash = own ? hash : OTHER_SOURCES.hash;
    const id = `${projectId}|${day}|${sourceHash}`;
    const row = sources.get(id) ?? {
      day,
      projectId,
      sourceHash,
      sourceUrl: own ? loggedSourceText(sourceUrl) : OTHER_SOURCES.label,
      requests: 0,
      outputBytes: 0,
    };
    row.requests! += 1;
    row.outputBytes! += outcome.outputBytes ?? 0;
    sources.set(id, row);
  }
  return {
    get size() {
      return hours.size + sources.size + qualities.size + variants.size + minutes.size;
    },
    /** The projects counted so far. */
    projects(): string[] {
      return [...new Set([...hours.values()].map((row) => row.projectId))];
    },
    /** Forgets what was counted for these projects (deleted before the batch was written). */
    drop(projectIds: ReadonlySet<string>): void {
      for (const [id, row] of hours) if (projectIds.has(row.projectId)) hours.delete(id);
      for (const [id, row] of sources) if (projectIds.has(row.projectId)) sources.delete(id);
      qualities.drop(projectIds);
      variants.drop(projectIds);
      minutes.drop(projectIds);
    },
    add(outcome: RequestOutcome & { projectId: string }, at: Date): void {
      variants.add(outcome, at);
      // The final AVIF made after an interim answer is work, not a request: the request log shows it.
      if (outcome.cache === "later") return;
      minutes.add(outcome, at);
      const hour = new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
      const cache = outcome.cache ?? "";
      const id = `${outcome.projectId}|${hour.toISOString()}|${outcome.status}|${cache}`;
      const row = hours.get(id) ?? {
        hour,
        projectId: outcome.projectId,
        status: outcome.status,
        cache,
        requests: 0,
        processingMs: 0,
        measuredRequests: 0,
        sourceBytes: 0,
        outputBytes: 0,
        ...emptyHistogram(),
      };
      const ms = Math.max(0, Math.round(outcome.durationMs));
      row.requests! += 1;
      row.processingMs! += ms;
      row[bucketOf(ms)]! += 1;
      if (outcome.status === "success" && outcome.sourceBytes != null && outcome.outputBytes != null) {
        row.measuredRequests! += 1;
        row.sourceBytes! += outcome.sourceBytes;
        row.outputBytes! += outcome.outputBytes;
      }
      hours.set(id, row);
      if (outcome.status === "success" && outcome.sourceUrl)
        addSource(outcome.projectId, outcome.sourceUrl, outcome, at);
      qualities.add(outcome, at);
    },
    /** The batch's upserts, for its one statement (one-statement.ts), in a fixed order. */
    statements(db: StatsWriter): Array<SQLWrapper | null> {
      const hourRows =
        hours.size === 0
          ? null
          : db
              .insert(requestStats)
              .values(inKeyOrder(hours))
              .onConflictDoUpdate({
                target: [requestStats.projectId, requestStats.hour, requestStats.status, requestStats.cache],
                set: Object.fromEntries(SUMMED.map((column) => [column, added(requestStats[column])])),
              });
      const sourceRows =
        sources.size === 0
          ? null
          : db
              .insert(requestSourceStats)
              .values(inKeyOrder(sources))
              .onConflictDoUpdate({
                target: [requestSourceStats.projectId, requestSourceStats.day, requestSourceStats.sourceHash],
                set: {
                  requests: added(requestSourceStats.requests),
                  outputBytes: added(requestSourceStats.outputBytes),
                },
              });
      return [hourRows, sourceRows, qualities.statement(db), variants.statement(db), minutes.statement(db)];
    },
  };
}

export type StatsBatch = ReturnType<typeof createStatsBatch>;

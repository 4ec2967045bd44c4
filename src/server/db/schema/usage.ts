import {
  bigint,
  boolean,
  bigserial,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { apiKeys } from "./api-keys";
import { projects } from "./tenancy";

/** Daily totals per project and key (UTC dates), fed by the usage flush. */
export const usageRecord = pgTable(
  "usage_record",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    apiKeyId: uuid("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    date: date("date", { mode: "string" }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
    bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
    /** Images the key's requests made (a miss, or an encode finished after its answer): what caps count. */
    transforms: bigint("transforms", { mode: "number" }).notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("usage_record_project_key_date_idx").on(t.projectId, t.apiKeyId, t.date)],
);

/**
 * One row per applied claim on a minute bucket. A flush claims a bucket's counters under a fresh id
 * and applies them only if it can insert (bucket, claim) here, in the transaction that applies them:
 * a retried claim is applied once, and increments that land after a claim get a claim of their own.
 */
export const usageFlushLedger = pgTable(
  "usage_flush_ledger",
  {
    bucket: text("bucket").notNull(),
    claim: text("claim").notNull(),
    rows: integer("rows").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    /** Requests whose key or project was deleted before the flush: counted here, not in usage_record. */
    droppedRequests: bigint("dropped_requests", { mode: "number" }).notNull().default(0),
    flushedAt: timestamp("flushed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.claim] }), index("usage_flush_ledger_flushed_idx").on(t.flushedAt)],
);

/**
 * Usage buffered in the database when there is no shared Redis (the embedded default): the minute
 * buckets of docs/redis-schema.md as rows, added in the same transaction as the request log's rows, so
 * a crash loses a request's log row and its metering together or neither. The flush moves ready minutes
 * into usage_record in one transaction with the ledger. No foreign keys, as in Redis: counters of a key
 * deleted meanwhile are dropped by the flush and counted in the ledger, and never fail the log's write.
 */
export const usageBuffer = pgTable(
  "usage_buffer",
  {
    /** The UTC minute, `YYYYMMDDHHmm`, as in the bucket's Redis key and the ledger. */
    bucket: text("bucket").notNull(),
    projectId: uuid("project_id").notNull(),
    apiKeyId: uuid("api_key_id").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    transforms: bigint("transforms", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.projectId, t.apiKeyId] })],
);

/** Last run of each scheduled job, for the dashboard's freshness line and for operators. */
export const cronRun = pgTable("cron_run", {
  job: text("job").primaryKey(),
  lastStartedAt: timestamp("last_started_at", { withTimezone: true }),
  lastFinishedAt: timestamp("last_finished_at", { withTimezone: true }),
  lastSuccessAt: timestamp("last_success_at", { withTimezone: true }),
  lastReport: jsonb("last_report"),
  lastError: text("last_error"),
});

/**
 * Partitioned by UTC day of `created_at` (db/day-partitions.ts; the migration is hand-written, drizzle-kit
 * does not model partitions): retention drops a day whole. The key must therefore hold the time; `id`
 * stays unique on its own, from its sequence.
 */
export const requestLog = pgTable(
  "request_log",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    requestId: text("request_id").notNull(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    apiKeyId: uuid("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    status: text("status").notNull(),
    httpStatus: integer("http_status").notNull(),
    /** Without query string and fragment, clipped (usage/logged-source.ts). */
    sourceUrl: text("source_url"),
    /** Of the whole source name (usage/logged-source.ts): finds one source exactly, however long. */
    sourceHash: text("source_hash"),
    operations: text("operations"),
    outputFormat: text("output_format"),
    /** What q_auto chose: the encoder quality and the SSIMULACRA 2 score it reached (null otherwise). */
    quality: integer("quality"),
    score: real("score"),
    /** The level was out of the format's reach on this image: the answer is its knee (true; null otherwise). */
    unreached: boolean("unreached"),
    sourceBytes: integer("source_bytes"),
    outputBytes: integer("output_bytes"),
    processingMs: integer("processing_ms"),
    /** Result cache: hit, miss, shared, revalidated. */
    cache: text("cache"),
    /** Requests this row stands for: 1 / the success sample rate for successes, 1 for failures. */
    weight: real("weight").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    // The usage page's newest-first pages walk it backwards and stop at a page, never sorting the range.
    // The planner picks that walk once it has statistics: PostgreSQL's autovacuum gathers them, and on
    // the embedded database, which runs none, the scheduler's table upkeep (db/table-upkeep.ts).
    index("request_log_project_created_id_idx").on(t.projectId, t.createdAt, t.id),
    // The same pages filtered by status (a rare one would otherwise walk the whole range).
    index("request_log_project_status_created_id_idx").on(t.projectId, t.status, t.createdAt, t.id),
    // No index on the time alone: with statistics, the planner walked one for a project's newest
    // successes and skipped every other row newer than them (a week of one tenant's failures, say).
    // Retention needs none: it drops whole days (db/day-partitions.ts).
    // One source's requests, newest first (the usage page's source filter given a whole source).
    index("request_log_project_source_created_id_idx").on(t.projectId, t.sourceHash, t.createdAt, t.id),
    // Looking one request up by the id its response carried (dashboard → Usage → request id).
    index("request_log_request_id_idx").on(t.requestId),
  ],
);

/**
 * Upper bounds (ms) of the processing-time histogram in request_stats; a last bucket holds the rest.
 * Columns `le_<bound>` below, in this order.
 */
export const PROCESSING_BOUNDS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000] as const;

/**
 * Every request the request log sees, counted per project, UTC hour, status and cache tier: exact
 * where the log's rows are sampled and capped, and small enough (a few rows per project-hour) that the
 * usage page's statistics read it instead of scanning rows. Added to by each batch of the log, in the
 * batch's transaction.
 */
export const requestStats = pgTable(
  "request_stats",
  {
    /** The UTC hour: the page shows days, and an hour keeps 90 days of a busy project small. */
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    status: text("status").notNull(),
    /** As request_log.cache; '' when the request reached no cache tier (failures). */
    cache: text("cache").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull(),
    processingMs: bigint("processing_ms", { mode: "number" }).notNull(),
    /** Requests that fetched their original, so both sizes are known (bandwidth saved). */
    measuredRequests: bigint("measured_requests", { mode: "number" }).notNull(),
    sourceBytes: bigint("source_bytes", { mode: "number" }).notNull(),
    outputBytes: bigint("output_bytes", { mode: "number" }).notNull(),
    le10: bigint("le_10", { mode: "number" }).notNull(),
    le25: bigint("le_25", { mode: "number" }).notNull(),
    le50: bigint("le_50", { mode: "number" }).notNull(),
    le100: bigint("le_100", { mode: "number" }).notNull(),
    le250: bigint("le_250", { mode: "number" }).notNull(),
    le500: bigint("le_500", { mode: "number" }).notNull(),
    le1000: bigint("le_1000", { mode: "number" }).notNull(),
    le2500: bigint("le_2500", { mode: "number" }).notNull(),
    le5000: bigint("le_5000", { mode: "number" }).notNull(),
    over: bigint("over", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hour, t.status, t.cache] })],
);

/**
 * Successful image answers per project, UTC day, quality mode (q_auto:good, f_best:eco, fixed, …:
 * image/quality/quality-mode.ts) and output format: what each mode delivered, how much smaller than the
 * originals (over the answers that fetched theirs) and at what perceptual score (over the answers
 * q_auto or f_best measured). The usage page's quality modes read it.
 */
export const requestQualityStats = pgTable(
  "request_quality_stats",
  {
    day: date("day", { mode: "string" }).notNull(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    mode: text("mode").notNull(),
    format: text("format").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull(),
    outputBytes: bigint("output_bytes", { mode: "number" }).notNull(),
    /** Answers that fetched their original: both sizes known. */
    measuredRequests: bigint("measured_requests", { mode: "number" }).notNull(),
    measuredSourceBytes: bigint("measured_source_bytes", { mode: "number" }).notNull(),
    measuredOutputBytes: bigint("measured_output_bytes", { mode: "number" }).notNull(),
    /** Answers carrying the SSIMULACRA 2 score their search reached, their sum and the lowest. */
    scoredRequests: bigint("scored_requests", { mode: "number" }).notNull(),
    scoreSum: doublePrecision("score_sum").notNull(),
    scoreMin: doublePrecision("score_min"),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.mode, t.format] })],
);

/**
 * Successful requests per project, UTC day and source, for the usage page's top sources. Keyed by the
 * source's SHA-256 (a URL can be longer than an index entry may be).
 */
export const requestSourceStats = pgTable(
  "request_source_stats",
  {
    day: date("day", { mode: "string" }).notNull(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    sourceHash: text("source_hash").notNull(),
    sourceUrl: text("source_url").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull(),
    outputBytes: bigint("output_bytes", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.sourceHash] })],
);

/**
 * The image variants each project delivered per UTC day (result-keys.ts: source, canonical operations,
 * negotiated format class), one row each however often it was served: distinct over 30 days, the unique
 * transformations hosted services bill by. Written by the request statistics' batch, kept as long.
 */
export const requestVariantDays = pgTable(
  "request_variant_days",
  {
    day: date("day", { mode: "string" }).notNull(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    variant: text("variant").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.variant] })],
);

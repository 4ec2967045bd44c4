import { bigint, bigserial, date, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { apiKeys } from "./api-keys";
import { projects } from "./tenancy";

/** Daily totals per project and key (UTC dates), fed by the usage flush. */
export const usageRecord = pgTable(
  "usage_record",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    apiKeyId: uuid("api_key_id").notNull().references(() => apiKeys.id, { onDelete: "cascade" }),
    date: date("date", { mode: "string" }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
    bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("usage_record_project_key_date_idx").on(t.projectId, t.apiKeyId, t.date)],
);

/** One row per flushed minute bucket: the flush applies a bucket only if it can insert its row here. */
export const usageFlushLedger = pgTable("usage_flush_ledger", {
  bucket: text("bucket").primaryKey(),
  rows: integer("rows").notNull(),
  requests: bigint("requests", { mode: "number" }).notNull(),
  bytes: bigint("bytes", { mode: "number" }).notNull(),
  flushedAt: timestamp("flushed_at", { withTimezone: true }).notNull().defaultNow(),
});

export const requestLog = pgTable(
  "request_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    requestId: text("request_id").notNull(),
    projectId: uuid("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
    apiKeyId: uuid("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    status: text("status").notNull(),
    httpStatus: integer("http_status").notNull(),
    /** Without query string and fragment. */
    sourceUrl: text("source_url"),
    operations: text("operations"),
    outputFormat: text("output_format"),
    sourceBytes: integer("source_bytes"),
    outputBytes: integer("output_bytes"),
    processingMs: integer("processing_ms"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("request_log_project_created_idx").on(t.projectId, t.createdAt)],
);

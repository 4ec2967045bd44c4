import { boolean, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { projects } from "./tenancy";

/**
 * A project's private S3-compatible buckets, used in image URLs as `s3/{alias}/{key}`. The secret
 * access key is sealed like API-key secrets (bound to the row's id), so it is never stored, cached or
 * logged in plaintext; the project's cached config carries it sealed.
 */
export const sourceBuckets = pgTable(
  "source_buckets",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    alias: text("alias").notNull(),
    endpoint: text("endpoint").notNull(),
    region: text("region").notNull(),
    bucket: text("bucket").notNull(),
    prefix: text("prefix").notNull().default(""),
    forcePathStyle: boolean("force_path_style").notNull().default(true),
    accessKeyId: text("access_key_id").notNull(),
    sealedSecret: text("sealed_secret").notNull(),
    updatedBy: text("updated_by").references(() => user.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** When the alert check last tried the credentials (null: not since they were saved), and why they failed. */
    credentialsCheckedAt: timestamp("credentials_checked_at", { withTimezone: true }),
    credentialsFailure: text("credentials_failure"),
  },
  (t) => [uniqueIndex("source_buckets_project_alias").on(t.projectId, t.alias)],
);

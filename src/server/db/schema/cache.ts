import { integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { projects } from "./tenancy";

/**
 * Sources purged since the project's last whole purge, with the generation each purge took from
 * projects.cache_generation. The generation is part of the ETag and of every cache key of that
 * source's results, so a purge makes every cached copy unreachable on every instance at once (the
 * project's config, which carries these rows, is invalidated like any settings change).
 */
export const sourcePurges = pgTable(
  "source_purges",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The source as the request log names it: origin and path, or local/<path>. */
    source: text("source").notNull(),
    generation: integer("generation").notNull(),
    purgedBy: text("purged_by").references(() => user.id, { onDelete: "set null" }),
    purgedAt: timestamp("purged_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.source] })],
);

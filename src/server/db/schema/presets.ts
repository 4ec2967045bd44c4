import { pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { projects } from "./tenancy";

/**
 * Named transformations of a project, used in URLs as `pr_{name}`. The operations are stored as the
 * segment an admin wrote (validated on save) and expanded on every request, so an edit changes the
 * variant key of that preset's URLs only. Carried by the project's config, invalidated on write.
 */
export const presets = pgTable(
  "presets",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    operations: text("operations").notNull(),
    updatedBy: text("updated_by").references(() => user.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

import { customType, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { projects } from "./tenancy";

/** node-postgres answers a Buffer, PGlite a Uint8Array: both become a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => Buffer.from(value),
});

/**
 * Images a project uploads in the dashboard: its watermark and its fallback (one of each). Kept in the
 * database, never fetched from a URL per request: instances read them once into memory by their
 * SHA-256, which the project's config carries so that a new upload makes new variants. `settings`
 * holds the kind's own options (the watermark's placement and whether it goes on every output).
 */
export const projectImages = pgTable(
  "project_images",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"watermark" | "fallback">().notNull(),
    bytes: bytea("bytes").notNull(),
    sha256: text("sha256").notNull(),
    format: text("format").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default({}),
    updatedBy: text("updated_by").references(() => user.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.kind] })],
);

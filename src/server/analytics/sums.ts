import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * A column's sum as a number (bigint sums come back as strings otherwise), 0 over no rows; with a
 * filter, over the rows it admits only.
 */
export const sum = (column: AnyPgColumn | SQL, filter?: SQL) =>
  filter
    ? sql<number>`coalesce(sum(${column}) filter (where ${filter}), 0)::float8`
    : sql<number>`coalesce(sum(${column}), 0)::float8`;

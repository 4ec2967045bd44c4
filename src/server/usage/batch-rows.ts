import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * A batch's rows in key order: two writers upserting overlapping batches then lock the rows in the
 * same order and cannot deadlock on PostgreSQL.
 */
export const inKeyOrder = <T>(rows: Map<string, T>): T[] =>
  [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);

/** `column + excluded.column`: an upsert adding the batch's count to the stored one. */
export const added = (column: AnyPgColumn): SQL => sql`${column} + excluded.${sql.identifier(column.name)}`;

/**
 * One table's share of a stats batch: rows by key, each of a project, and the two things every share
 * answers (how many rows, and forgetting the projects deleted before the batch was written).
 */
export function projectRows<T extends { projectId: string }>() {
  const rows = new Map<string, T>();
  return {
    rows,
    get size() {
      return rows.size;
    },
    drop(projectIds: ReadonlySet<string>): void {
      for (const [id, row] of rows) if (projectIds.has(row.projectId)) rows.delete(id);
    },
  };
}

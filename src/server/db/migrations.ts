import { readFileSync } from "node:fs";
import path from "node:path";
import { sql, type SQL } from "drizzle-orm";

/**
 * The committed drizzle-kit migrations. Resolved from the working directory because the server bundle
 * lives under .next/ where module-relative paths do not lead back to the repository.
 */
export function migrationsFolder(): string {
  return path.resolve(process.cwd(), "drizzle");
}

/**
 * How many committed migrations the database has not had, without applying them: what a command that
 * only reads checks instead of migrating. Drizzle's migrator applies every migration newer than the
 * newest it recorded, so that is the count.
 */
export async function pendingMigrations(db: { execute(query: SQL): PromiseLike<unknown> }): Promise<number> {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8")) as {
    entries: Array<{ when: number }>;
  };
  const [recorded] = rowsOf<{ exists: boolean }>(
    await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`),
  );
  if (!recorded?.exists) return journal.entries.length;
  const [last] = rowsOf<{ at: string | null }>(
    await db.execute(sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`),
  );
  const newest = Number(last?.at ?? 0);
  return journal.entries.filter((entry) => entry.when > newest).length;
}

/** postgres.js answers an array of rows, PGlite a result with `rows`. */
function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}

import { readFileSync } from "node:fs";
import path from "node:path";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf } from "./rows-of";

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
/** How many migrations this version carries. */
export function countMigrations(): number {
  return journal().entries.length;
}

function journal(): { entries: Array<{ when: number }> } {
  return JSON.parse(readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8")) as {
    entries: Array<{ when: number }>;
  };
}

export async function pendingMigrations(db: { execute(query: SQL): PromiseLike<unknown> }): Promise<number> {
  const { entries } = journal();
  const [recorded] = rowsOf<{ exists: boolean }>(
    await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`),
  );
  if (!recorded?.exists) return entries.length;
  const [last] = rowsOf<{ at: string | null }>(
    await db.execute(sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`),
  );
  const newest = Number(last?.at ?? 0);
  return entries.filter((entry) => entry.when > newest).length;
}

const SCHEMA_BEHIND = Symbol.for("optstuff.SchemaBehindError");

/** A server that does not migrate at start found the database behind its code: the deploy step did not run. */
export class SchemaBehindError extends Error {
  readonly [SCHEMA_BEHIND] = true;

  constructor(readonly behind: number) {
    super(
      `The database is ${behind} migration(s) behind this version of OptStuff, and this server does not migrate at start (OPTSTUFF_MIGRATE_AT_START): run \`npm run optstuff -- migrate\` with DATABASE_URL_UNPOOLED (or DATABASE_URL) set to the direct URL, as the deploy step does`,
    );
    this.name = "SchemaBehindError";
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" && value !== null && (value as { [SCHEMA_BEHIND]?: unknown })[SCHEMA_BEHIND] === true
    );
  }
}

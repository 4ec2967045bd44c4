import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { lockEmbeddedDatabase, type DatabaseOwner } from "./embedded-lock";
import { migrationsFolder } from "./migrations";
import * as schema from "./schema";

export type Schema = typeof schema;
/** Both drivers produce this type: domain code never knows which one it talks to. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  /** A trivial round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseTarget = (
  | { kind: "postgres"; url: string; maxConnections?: number }
  /**
   * `dataDir` null keeps the database in memory (tests). A directory is owned by one process at a time
   * (embedded-lock.ts): `owner` names this one in another's refusal.
   */
  | { kind: "pglite"; dataDir: string | null; sharedBuffersMb?: number; owner?: OwnerOptions }
) & {
  /** Apply pending migrations on open (default). A command that only reads checks pendingMigrations instead. */
  migrate?: boolean;
};

export interface OwnerOptions {
  role: string;
  /** What to do when the lock was lost (see lockEmbeddedDatabase); default: throw. */
  onCompromised?(error: Error): void;
  onTakeover?(owner: DatabaseOwner | null): void;
}

/** Opens the database and applies pending migrations (unless told not to). */
export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  const migrate = target.migrate ?? true;
  return target.kind === "postgres"
    ? openPostgres(target.url, target.maxConnections ?? 10, migrate)
    : openPglite(target.dataDir, target.sharedBuffersMb ?? DEFAULT_SHARED_BUFFERS_MB, migrate, target.owner);
}

/**
 * PGlite keeps PostgreSQL's buffer pool inside its WebAssembly memory, all of it resident, and that
 * memory never shrinks: the default 128 MB pool was most of the embedded server's idle footprint.
 * 16 MB holds a small deployment's working set (pages it misses come from the OS page cache); measured
 * in bare Node, reopening a data directory idled at 316 MB by default and 194 MB with 16 MB, with the
 * same durability (the pool is a cache; commits still reach the WAL). Passed as a start parameter, not
 * written into postgresql.conf, so a later start can choose again (OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB).
 */
const DEFAULT_SHARED_BUFFERS_MB = 16;

async function openPglite(
  dataDir: string | null,
  sharedBuffersMb: number,
  applyMigrations: boolean,
  owner: OwnerOptions = { role: "another process" },
): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const release = dataDir
    ? await lockEmbeddedDatabase(dataDir, {
        role: owner.role,
        onCompromised:
          owner.onCompromised ??
          ((error) => {
            throw error;
          }),
        onTakeover: owner.onTakeover,
      })
    : async () => {};
  try {
    const options = { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffersMb}MB`] };
    const client = dataDir ? new PGlite(path.join(dataDir, "pglite"), options) : new PGlite(options);
    const db = drizzle(client, { schema });
    if (applyMigrations) await migrate(db, { migrationsFolder: migrationsFolder() });
    return {
      db: db as unknown as Database,
      kind: "pglite",
      ping: async () => void (await client.query("select 1")),
      close: async () => {
        try {
          await client.close();
        } finally {
          await release();
        }
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

// Any constant shared by every instance: several instances starting together migrate one at a time.
const MIGRATION_LOCK = 7_150_715;

async function openPostgres(url: string, max: number, applyMigrations: boolean): Promise<DatabaseHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const sql = postgres(url, { max, onnotice: () => {}, connect_timeout: 10, idle_timeout: 30 });
  const db = drizzle(sql, { schema });
  if (applyMigrations) {
    const lock = await sql.reserve();
    try {
      await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
      await migrate(db, { migrationsFolder: migrationsFolder() });
    } finally {
      await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
      lock.release();
    }
  }
  return {
    db: db as unknown as Database,
    kind: "postgres",
    ping: async () => void (await sql`select 1`),
    close: () => sql.end({ timeout: 5 }),
  };
}

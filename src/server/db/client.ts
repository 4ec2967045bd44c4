import { awaitOrphanedOwner, DatabaseInUseError, servingOwner } from "./embedded-lock";
import { launchDatabaseProcess, type DatabaseProcessOptions } from "./embedded/launch";
import { openPglite, type OwnerOptions } from "./embedded/open-pglite";
import { databaseSettings } from "./settings";
import type { Database } from "./database";
import { DAYS_AHEAD, prepareDayPartitions } from "./day-partitions";
import { migrationsFolder, pendingMigrations, SchemaBehindError } from "./migrations";
import * as schema from "./schema";

export type { OwnerOptions } from "./embedded/open-pglite";
export type { Database, Schema } from "./database";

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  /** A trivial round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseTarget = (
  | {
      kind: "postgres";
      url: string;
      maxConnections?: number;
      /** Through a pooler in transaction mode: no named prepared statements, no migrations over `url`. */
      pooled?: boolean;
      /** The direct URL migrations run over (DATABASE_URL_UNPOOLED); default `url` when not pooled. */
      migrationUrl?: string;
      /** Without migrating: refuse to open a database that is behind (SchemaBehindError). */
      requireCurrent?: boolean;
    }
  /**
   * `dataDir` null keeps the database in memory (tests). A directory is owned by one process at a time
   * (embedded-lock.ts): `owner` names this one in another's refusal. With `serve`, PGlite runs in a
   * process of its own that owns the directory, and this one speaks PostgreSQL to it (the server);
   * without, a directory some server's database process serves is reached through that process (the
   * command line while the server runs), and otherwise opened here.
   */
  | {
      kind: "pglite";
      dataDir: string | null;
      /**
       * In memory only: start from this dump of a database (PGlite's `dumpDataDir`) instead of an empty
       * one; migrations then apply what it lacks. An empty cluster costs 2 s to make, a dump 0.6 s to load.
       */
      template?: Blob;
      sharedBuffersMb?: number;
      owner?: OwnerOptions;
      serve?: { entry: string; onLost: DatabaseProcessOptions["onLost"] };
    }
) & {
  /** Apply pending migrations on open (default). A command that only reads checks pendingMigrations instead. */
  migrate?: boolean;
};

/** Opens the database and applies pending migrations (unless told not to). */
export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  const migrate = target.migrate ?? true;
  if (target.kind === "postgres") return openPostgresTarget(target, migrate);
  const sharedBuffersMb =
    target.sharedBuffersMb ?? databaseSettings.settings.OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB.default;
  if (target.dataDir) await awaitOrphanedOwner(target.dataDir);
  if (target.dataDir && target.serve) {
    const process = await launchDatabaseProcess({
      entry: target.serve.entry,
      dataDir: target.dataDir,
      sharedBuffersMb,
      role: target.owner?.role ?? "the OptStuff server",
      onTakeover: target.owner?.onTakeover,
      onLost: target.serve.onLost,
    });
    try {
      const handle = await openPostgres({ socket: process.socket, max: 10, migrate, serialise: false });
      return { ...handle, kind: "pglite", close: () => handle.close().finally(() => process.stop()) };
    } catch (error) {
      await process.stop();
      throw error;
    }
  }
  const serving = target.dataDir ? servingOwner(target.dataDir) : null;
  if (serving) {
    const handle = await openPostgres({ socket: serving.socket, max: 2, migrate, serialise: false }).catch(() => {
      throw new DatabaseInUseError(target.dataDir!, serving);
    });
    return { ...handle, kind: "pglite" };
  }
  return openInProcess(target.dataDir, sharedBuffersMb, migrate, target.owner, target.template);
}

async function openPostgresTarget(
  target: Extract<DatabaseTarget, { kind: "postgres" }>,
  migrate: boolean,
): Promise<DatabaseHandle> {
  const pooled = target.pooled ?? false;
  if (migrate) {
    const direct = target.migrationUrl ?? (pooled ? undefined : target.url);
    if (!direct)
      throw new Error(
        "DATABASE_URL goes through a pooler (OPTSTUFF_DATABASE_POOLED; on Vercel by default): migrations need the direct URL in DATABASE_URL_UNPOOLED, or OPTSTUFF_DATABASE_POOLED=off when DATABASE_URL is direct",
      );
    // Its own connection: the advisory lock and its release must reach the same session.
    if (direct !== target.url || pooled) {
      // Two connections: one holds the lock, the migrator runs on the other.
      const migrator = await openPostgres({ url: direct, max: 2, migrate: true, serialise: true, pooled: false });
      await migrator.close();
    } else {
      return openPostgres({
        url: target.url,
        max: target.maxConnections ?? 10,
        migrate: true,
        serialise: true,
        pooled,
      });
    }
  }
  const handle = await openPostgres({
    url: target.url,
    max: target.maxConnections ?? 10,
    migrate: false,
    serialise: false,
    pooled,
  });
  if (target.requireCurrent) {
    const behind = await pendingMigrations(handle.db).catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    if (behind > 0) {
      await handle.close();
      throw new SchemaBehindError(behind);
    }
  }
  return handle;
}

async function openInProcess(
  dataDir: string | null,
  sharedBuffersMb: number,
  applyMigrations: boolean,
  owner?: OwnerOptions,
  template?: Blob,
): Promise<DatabaseHandle> {
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const pglite = await openPglite(dataDir, sharedBuffersMb, owner, template);
  try {
    const db = drizzle(pglite.client, { schema });
    if (applyMigrations)
      await migrateAndPrepare(db as unknown as Database, () => migrate(db, { migrationsFolder: migrationsFolder() }));
    return {
      db: db as unknown as Database,
      kind: "pglite",
      ping: async () => void (await pglite.client.query("select 1")),
      close: () => pglite.close(),
    };
  } catch (error) {
    await pglite.close();
    throw error;
  }
}

/** Migrating is when a database first needs its day partitions (db/day-partitions.ts); upgrades too. */
async function migrateAndPrepare(db: Database, migrate: () => Promise<void>): Promise<void> {
  await migrate();
  await prepareDayPartitions(db, new Date(), DAYS_AHEAD.open);
}

// Any constant shared by every instance: several instances starting together migrate one at a time.
const MIGRATION_LOCK = 7_150_715;

interface PostgresOptions {
  url?: string;
  /** A Unix socket served by an embedded database process (PGlite: one session, no password). */
  socket?: string;
  max: number;
  migrate: boolean;
  /** Take the migration lock: several instances may start together (one owner for an embedded one). */
  serialise: boolean;
  /**
   * Through a pooler in transaction mode, where a named statement may reach a session that never
   * prepared it (postgres.js then prepares it again, a failed round trip each time): unnamed only.
   */
  pooled?: boolean;
}

async function openPostgres(options: PostgresOptions): Promise<DatabaseHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const common = { max: options.max, onnotice: () => {}, connect_timeout: 10, idle_timeout: 30 };
  const sql = options.socket
    ? // Unnamed statements only: connections share PGlite's one session, where named ones would pile up.
      postgres({ ...common, path: options.socket, username: "postgres", database: "postgres", prepare: false })
    : postgres(options.url!, { ...common, prepare: !options.pooled });
  try {
    const db = drizzle(sql, { schema });
    if (options.migrate && options.serialise) {
      const lock = await sql.reserve();
      try {
        await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
        await migrateAndPrepare(db as unknown as Database, () => migrate(db, { migrationsFolder: migrationsFolder() }));
      } finally {
        await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
        lock.release();
      }
    } else if (options.migrate) {
      await migrateAndPrepare(db as unknown as Database, () => migrate(db, { migrationsFolder: migrationsFolder() }));
    } else {
      await sql`select 1`;
    }
    return {
      db: db as unknown as Database,
      kind: "postgres",
      ping: async () => void (await sql`select 1`),
      close: () => sql.end({ timeout: 5 }),
    };
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    throw error;
  }
}

import { existsSync } from "node:fs";
import path from "node:path";
import { addressInEnvironment, env, type Env } from "@/env";
import { auditTrail, commandLineActor } from "@/server/audit/trail";
import { createConfigInvalidator, type ConfigInvalidator } from "@/server/config-cache";
import { loadSecrets } from "@/server/config/secrets";
import { commandAddress, type CommandAddress } from "@/server/config/server-address";
import { createCoordination } from "@/server/coordination/create-coordination";
import { createCounters } from "@/server/coordination/counters";
import { openDatabase, type Database, type DatabaseTarget } from "@/server/db/client";
import { createPublicNames, type PublicNames } from "@/server/delivery/public-names";
import { DatabaseInUseError, type DatabaseOwner } from "@/server/db/embedded-lock";
import { countMigrations, pendingMigrations } from "@/server/db/migrations";
import { createLogger, type Logger } from "@/server/log";
import { redisOf } from "@/server/coordination/settings";
import { databaseTargetOf } from "@/server/db/target";
import { createSecretBox, type SecretBox } from "@/server/signing";
import type { TenancyDeps } from "@/server/tenancy/deps";
import { CliError } from "./errors";
import type { Output } from "./output";

/** What every command gets: the environment (read once, when first needed), the output and its role. */
export interface CliContext {
  out: Output;
  /** How this command names itself to a server that finds the database in use ("optstuff keys create"). */
  role: string;
  env(): Env;
  /** Where the server answers, as every command prints it (src/server/config/server-address.ts). */
  address(): CommandAddress;
  baseUrl(): string;
}

export function createContext(out: Output, role: string): CliContext {
  const address = () => commandAddress(env(), addressInEnvironment());
  return { out, role, env, address, baseUrl: () => address().baseUrl };
}

/** The database, for a command that only reads: a database that does not exist yet is not created. */
export async function withReadDatabase<T>(ctx: CliContext, run: (db: Database) => Promise<T>): Promise<T> {
  const target = databaseTargetOf(ctx.env());
  if (target.kind === "pglite" && target.dataDir && !existsSync(path.join(target.dataDir, "pglite"))) {
    throw new CliError(
      `There is no embedded database in ${target.dataDir} yet: it is made when the server first starts (npm start), or by optstuff bootstrap.`,
      1,
    );
  }
  return withDatabase(ctx, { ...target, migrate: false }, async (db) => {
    const behind = await pendingMigrations(db);
    if (behind > 0)
      throw new CliError(
        `The database is ${behind} migration(s) behind this version of OptStuff: the server applies them when it starts (npm start); a command that only shows does not.`,
        1,
      );
    return run(db);
  });
}

/** Applies pending migrations (creating an embedded database that does not exist yet); answers how many. */
export async function migrateDatabase(ctx: CliContext): Promise<{ applied: number }> {
  const target = databaseTargetOf(ctx.env());
  const fresh = target.kind === "pglite" && target.dataDir && !existsSync(path.join(target.dataDir, "pglite"));
  const before = fresh ? countMigrations() : await withDatabase(ctx, { ...target, migrate: false }, pendingMigrations);
  // A build that migrates on every deploy usually finds nothing to do: then the database opens once.
  if (before === 0) return { applied: 0 };
  const after = await withDatabase(ctx, target, pendingMigrations);
  if (after > 0) throw new CliError(`${after} migration(s) are still pending after migrating`, 1);
  return { applied: before };
}

export interface WriteDeps extends TenancyDeps {
  /** Redis-backed invalidation reaches every instance; without Redis there is no cache outside a server. */
  invalidate: ConfigInvalidator;
  /** The servers' Cache-Tag names (same master secret), for the tag a purge answers with. */
  publicNames: PublicNames;
}

/** The database and what writes need: the sealing box, the public names, and invalidation of what servers cache. */
export async function withWriteDatabase<T>(ctx: CliContext, run: (deps: WriteDeps) => Promise<T>): Promise<T> {
  const e = ctx.env();
  const secrets = loadSecrets(e);
  const secretBox: SecretBox = createSecretBox(secrets.keyEncryption, secrets.keyEncryptionPrevious);
  const redis = redisOf(e);
  return withDatabase(ctx, databaseTargetOf(e), (db) =>
    run({
      db,
      secretBox,
      publicNames: createPublicNames(secrets.keyEncryption),
      // The operator's commands act on the instance as a whole; no signed-in account is kept out here.
      secondFactorRequired: false,
      // With shared Redis, other instances' L1 copies expire within a second; a failed drop is logged,
      // and the entry it could not replace expires by itself (invalidate.ts). A running embedded server keeps no
      // tier but L1, whose copies expire within its second (OPTSTUFF_CONFIG_CACHE_TTL_MS).
      invalidate: createConfigInvalidator({
        l1: null,
        kv: redis ? createCoordination(redis).kv : null,
        logger: cliLogger(ctx),
        counters: createCounters(),
      }),
      hostPolicy: { allowLoopback: e.OPTSTUFF_ALLOW_LOOPBACK_SOURCES },
      now: () => new Date(),
      // Every change a command makes is written down as the command line's.
      audit: auditTrail(commandLineActor, () => new Date()),
    }),
  );
}

/** Log lines of the services a command uses: on stderr, so that stdout holds only the result. */
export function cliLogger(ctx: CliContext): Logger {
  return createLogger("warn", (line) => ctx.out.note(line));
}

async function withDatabase<T>(ctx: CliContext, target: DatabaseTarget, run: (db: Database) => Promise<T>): Promise<T> {
  const withOwner =
    target.kind === "pglite"
      ? {
          ...target,
          owner: {
            role: ctx.role,
            // Only a failed refresh (the lock directory removed or unwritable) gets here: say so, fail.
            onCompromised: (error: Error) => {
              ctx.out.note(`optstuff: lost the embedded database's lock: ${error.message}`);
              process.exitCode = 1;
            },
            onTakeover: (owner: DatabaseOwner | null) =>
              ctx.out.note(
                `The embedded database was left locked by ${owner ? `pid ${owner.pid} (${owner.role})` : "a process"}, which ended: taking it over.`,
              ),
          },
        }
      : target;
  let handle;
  try {
    handle = await openDatabase(withOwner);
  } catch (error) {
    if (error instanceof DatabaseInUseError) {
      throw new CliError(
        `${error.message}. Run this again when it is done (an embedded database has one owner at a time), or make the change in the dashboard.`,
        1,
      );
    }
    throw error;
  }
  try {
    return await run(handle.db);
  } finally {
    await handle.close();
  }
}

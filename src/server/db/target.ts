import path from "node:path";
import type { PlatformValues } from "@/server/config/platform-settings";
import type { ServerValues } from "@/server/config/server-settings";
import type { DatabaseTarget } from "./client";
import { databasePooled, migratesAtStart, type DatabaseValues } from "./settings";

type Values = DatabaseValues & Pick<PlatformValues, "VERCEL"> & Pick<ServerValues, "OPTSTUFF_DATA_DIR">;

/** Written by the build: the server runs the embedded database in a process of its own (db/embedded/process-main.ts). */
export const EMBEDDED_DATABASE_ENTRY = "dist/embedded-database.mjs";

/**
 * What the command line opens: the embedded database under OPTSTUFF_DATA_DIR, or PostgreSQL over the
 * direct URL when there is one (a command that changes the schema, `migrate`, needs it).
 */
export function databaseTargetOf(v: Values): DatabaseTarget {
  if (v.DATABASE_URL === undefined)
    return {
      kind: "pglite",
      dataDir: path.resolve(v.OPTSTUFF_DATA_DIR),
      sharedBuffersMb: v.OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB,
    };
  if (v.DATABASE_URL_UNPOOLED) return { kind: "postgres", url: v.DATABASE_URL_UNPOOLED };
  return { kind: "postgres", url: v.DATABASE_URL, pooled: databasePooled(v) };
}

/**
 * What the server opens: its pool over DATABASE_URL; migrations at start over the direct URL, or,
 * where the server does not migrate (Vercel's cold starts), a refusal when the database is behind.
 */
export function serverDatabaseTargetOf(v: Values): DatabaseTarget {
  const command = databaseTargetOf(v);
  if (command.kind !== "postgres" || v.DATABASE_URL === undefined) return command;
  const migrate = migratesAtStart(v);
  return {
    kind: "postgres",
    url: v.DATABASE_URL,
    pooled: databasePooled(v),
    migrationUrl: v.DATABASE_URL_UNPOOLED,
    migrate,
    requireCurrent: !migrate,
  };
}

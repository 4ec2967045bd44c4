import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import postgres from "postgres";
import { inject } from "vitest";
import { openDatabase } from "@/server/db/client";
import { migrationsFolder } from "@/server/db/migrations";

/**
 * One migrated database per test run, copied for each test's own (database.ts), made by the
 * integration project's global setup. A new PGlite cluster costs 2 s and its migrations 0.5 s more,
 * a copy loaded from a dump 0.6 s; on PostgreSQL `CREATE DATABASE … TEMPLATE` skips the migrations.
 * Opening a copy still migrates (nothing is pending) and prepares its day partitions, as a restart does.
 */
export interface DatabaseTemplate {
  /** A file holding the migrated PGlite cluster (`dumpDataDir`). */
  dump: string;
  /** A migrated database on TEST_DATABASE_URL's server, nobody connected to it. */
  postgres?: string;
}

declare module "vitest" {
  interface ProvidedContext {
    databaseTemplate: DatabaseTemplate;
  }
}

export async function makeDatabaseTemplate(): Promise<{ template: DatabaseTemplate; remove(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), "optstuff-template-"));
  const dump = path.join(dir, "pglite.tar");
  await dumpMigratedPglite(dump);
  const adminUrl = process.env.TEST_DATABASE_URL;
  const onPostgres = adminUrl ? await migratedPostgres(adminUrl) : undefined;
  return {
    template: { dump, postgres: onPostgres?.name },
    async remove() {
      rmSync(dir, { recursive: true, force: true });
      await onPostgres?.drop();
    },
  };
}

async function dumpMigratedPglite(file: string): Promise<void> {
  const client = new PGlite();
  try {
    await migrate(drizzle(client), { migrationsFolder: migrationsFolder() });
    writeFileSync(file, Buffer.from(await (await client.dumpDataDir("none")).arrayBuffer()));
  } finally {
    await client.close();
  }
}

/** A database migrated as the server migrates one (migrations under their lock, day partitions). */
async function migratedPostgres(adminUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `optstuff_template_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // Two connections: one holds the migration lock, the migrator runs on the other.
  await (await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 2 })).close();
  return {
    name,
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** The run's template, in a test process of the integration project; none elsewhere. */
export function databaseTemplate(): DatabaseTemplate | undefined {
  return inject("databaseTemplate");
}

let loaded: { file: string; blob: Blob } | undefined;

/** The template's PGlite dump, read once per test process. */
export function pgliteTemplate(template: DatabaseTemplate): Blob {
  if (loaded?.file !== template.dump) loaded = { file: template.dump, blob: new Blob([readFileSync(template.dump)]) };
  return loaded.blob;
}

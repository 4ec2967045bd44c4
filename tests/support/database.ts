import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { databaseTemplate, pgliteTemplate } from "./database-template";

/**
 * A migrated, empty database for one test file: in-memory PGlite by default, or a fresh database on
 * the PostgreSQL server named by TEST_DATABASE_URL (dropped again on close). `migrate: false` leaves
 * a PostgreSQL database without tables, as a new deployment finds it. Copied from the run's migrated
 * template where there is one (database-template.ts).
 */
export async function createTestDatabase(
  options: { migrate?: boolean } = {},
): Promise<DatabaseHandle & { url?: string }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const template = databaseTemplate();
  if (!adminUrl) {
    return openDatabase({ kind: "pglite", dataDir: null, template: template && pgliteTemplate(template) });
  }

  const name = `optstuff_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const copied = options.migrate !== false && template?.postgres;
  await admin.unsafe(copied ? `create database ${name} template ${template.postgres}` : `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({
    kind: "postgres",
    url: url.toString(),
    maxConnections: 5,
    migrate: options.migrate ?? true,
  });
  return {
    ...handle,
    url: url.toString(),
    async close() {
      await handle.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export function testDatabaseKind(): "postgres" | "pglite" {
  return process.env.TEST_DATABASE_URL ? "postgres" : "pglite";
}

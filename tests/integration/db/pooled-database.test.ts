import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { openDatabase } from "@/server/db/client";
import { countMigrations, SchemaBehindError } from "@/server/db/migrations";
import { serverDatabaseTargetOf } from "@/server/db/target";
import { startPgBouncer, type Pooler } from "../../support/pgbouncer";
import { need } from "../../support/services";
import { vercelEnv } from "../../support/vercel-env";

/**
 * PostgreSQL behind a real PgBouncer in transaction mode, as Neon's `-pooler` URL (which Neon
 * recommends for Vercel Functions) and Supabase's port 6543 put it: consecutive transactions of one
 * client connection may run in different server sessions.
 */
const services = need("postgresql", "pgbouncer");
const run = promisify(execFile);

let admin: postgres.Sql;
let name: string;
let direct: string;
let pooler: Pooler;

beforeAll(async () => {
  if (services.skip) return;
  admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  name = `optstuff_pooled_${randomBytes(6).toString("hex")}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  direct = url.toString();
  pooler = await startPgBouncer(direct, 2);
}, 60_000);
afterAll(async () => {
  if (services.skip) return;
  await pooler?.stop();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
});

const secrets = { OPTSTUFF_KEY_ENCRYPTION_SECRET: "k".repeat(32), BETTER_AUTH_SECRET: "a".repeat(32) };
const serverTarget = (env: Record<string, string>) =>
  serverDatabaseTargetOf(parseEnv({ NODE_ENV: "production", ...secrets, ...env }));

function optstuff(args: string[], env: Record<string, string>) {
  return run(process.execPath, ["scripts/optstuff.mjs", ...args], {
    env: { PATH: process.env.PATH ?? "", ...secrets, ...env } as unknown as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (failure: { code: number; stdout: string; stderr: string }) => failure,
  );
}

describe.skipIf(services.skip)(services.title("a database behind PgBouncer in transaction mode"), () => {
  it("loses a session's advisory lock through the pooler: the unlock lands in another session and the lock stays held", async () => {
    const a = postgres(pooler.url, { max: 1, prepare: false, onnotice: () => {} });
    const b = postgres(pooler.url, { max: 1, prepare: false, onnotice: () => {} });
    try {
      const reserved = await a.reserve();
      await reserved`select pg_advisory_lock(7150715)`;
      // Another client's transaction takes the session that holds the lock.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const busy = b.begin(async (tx) => {
        await tx`select 1`;
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [unlocked] = await reserved`select pg_advisory_unlock(7150715) as released`;
      release();
      await busy;
      reserved.release();
      expect(unlocked!.released).toBe(false);
      const [locks] =
        await admin`select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' and d.datname = ${name}`;
      expect(locks!.n).toBe(1);
    } finally {
      await Promise.all([a.end({ timeout: 1 }), b.end({ timeout: 1 })]);
      // The session that kept the lock goes with PgBouncer's pool.
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
    }
  }, 30_000);

  it("refuses to start on a database that is behind when it does not migrate at start, naming the deploy step", async () => {
    const target = serverTarget({
      DATABASE_URL: pooler.url,
      OPTSTUFF_DATABASE_POOLED: "on",
      OPTSTUFF_MIGRATE_AT_START: "off",
    });
    const refused = await openDatabase(target).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaBehindError);
    expect((refused as Error).message).toMatch(/behind.*npm run optstuff -- migrate.*DATABASE_URL_UNPOOLED/);
  }, 30_000);

  it("migrates with optstuff migrate over the direct URL; a preview's build migrates only a database it is told is its own", async () => {
    const preview = {
      ...vercelEnv,
      ...secrets,
      VERCEL_ENV: "preview",
      DATABASE_URL: pooler.url,
      DATABASE_URL_UNPOOLED: direct,
    };
    const unknown = await optstuff(["migrate", "--vercel-build"], preview);
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stdout).toContain("Skipped: a preview deployment: nothing migrated");
    expect(unknown.stdout).toContain("OPTSTUFF_MIGRATE_PREVIEWS=on");
    const [{ tables }] = (await admin.unsafe(
      `select count(*)::int as tables from information_schema.tables where table_schema = 'public'`,
    )) as unknown as [{ tables: number }];
    expect(tables).toBe(0);

    // Its own database (Neon's branch for the preview): migrated by the preview's build, before its functions start.
    const own = await optstuff(["migrate", "--vercel-build", "--json"], {
      ...preview,
      OPTSTUFF_MIGRATE_PREVIEWS: "on",
    });
    expect(own.code, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout)).toEqual({ applied: countMigrations() });

    const production = await optstuff(["migrate", "--vercel-build", "--json"], {
      ...preview,
      VERCEL_ENV: "production",
    });
    expect(JSON.parse(production.stdout)).toEqual({ applied: 0 });
    const again = await optstuff(["migrate", "--json"], { DATABASE_URL: pooler.url, DATABASE_URL_UNPOOLED: direct });
    expect(JSON.parse(again.stdout)).toEqual({ applied: 0 });
  }, 90_000);

  it("migrates at start over the direct URL, then serves concurrent queries through the pooler", async () => {
    const handle = await openDatabase(
      serverTarget({ DATABASE_URL: pooler.url, DATABASE_URL_UNPOOLED: direct, OPTSTUFF_DATABASE_POOLED: "on" }),
    );
    try {
      // The pool has two server sessions for 200 queries. Unnamed statements only (pooled): postgres.js
      // would otherwise re-prepare each time a named one reached a session that never saw it.
      const answers = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const rows = (await handle.db.execute(
            sql`select ${i}::int as n, ${`t${i % 7}`}::text as t`,
          )) as unknown as Array<{
            n: number;
          }>;
          return rows[0]!.n === i;
        }),
      );
      expect(answers.every(Boolean)).toBe(true);
    } finally {
      await handle.close();
    }
  }, 60_000);
});

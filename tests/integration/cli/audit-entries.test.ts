import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq, gt } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { optstuffProgram } from "@/cli/main";
import { openDatabase, type Database } from "@/server/db/client";
import { auditLog, auditStreams, teams, twoFactor, user } from "@/server/db/schema";
import { createTestDatabase } from "../../support/database";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { need } from "../../support/services";

/**
 * Every command that changes something writes its change to the audit log as the command line's; every
 * command that only shows writes nothing. The lists below must name every command the CLI has.
 */
const CHANGING = [
  "bootstrap",
  "sources set",
  "referers set",
  "keys create",
  "keys rotate",
  "keys revoke",
  // Shows a key's caps; changes them only when a cap option is given (both are tested below).
  "keys caps",
  "purge",
  "reset-limits",
  "reseal",
  "migrate",
  "accounts reset-second-factor",
  // Shows a team's audit stream; moves its cursor only with --reset-to (both are tested below).
  "audit-stream",
] as const;
const SHOWING = [
  "teams list",
  "accounts list",
  "projects list",
  "keys list",
  "sources show",
  "referers show",
  "sign",
  "doctor",
];

type AnyCommand = { commands: readonly AnyCommand[]; name(): string };

function leafCommands(command: AnyCommand, prefix: string[] = []): string[] {
  const children = command.commands;
  if (children.length === 0) return [prefix.join(" ")];
  return children.flatMap((child) => leafCommands(child, [...prefix, child.name()]));
}

const run = promisify(execFile);
const redisCheck = need("redis-server");
let databaseUrl: string | undefined;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let redis: RealRedis | undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), "optstuff-cli-audit-"));

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) {
    // Without tables: `optstuff migrate` makes them, and writes that it did.
    database = await createTestDatabase({ migrate: false });
    databaseUrl = database.url;
  }
  if (!redisCheck.skip) redis = await startRealRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
  await database?.close();
});

async function optstuff(args: string[], extraEnv: Record<string, string> = {}) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", OPTSTUFF_DATA_DIR: dataDir, ...extraEnv };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const { stdout } = await run(process.execPath, ["scripts/optstuff.mjs", ...args], {
    env: env as NodeJS.ProcessEnv,
    timeout: 90_000,
    encoding: "utf8",
  });
  return stdout;
}

/** The database the commands use, opened between them (the embedded one takes one owner at a time). */
async function withDatabase<T>(run: (db: Database) => Promise<T>): Promise<T> {
  const handle = await openDatabase(
    databaseUrl
      ? { kind: "postgres", url: databaseUrl }
      : { kind: "pglite", dataDir, owner: { role: "the audit test" } },
  );
  try {
    return await run(handle.db);
  } finally {
    await handle.close();
  }
}

const entriesAfter = (id: number) =>
  withDatabase((db) => db.select().from(auditLog).where(gt(auditLog.id, id)).orderBy(auditLog.id));

const lastId = async () => (await entriesAfter(0)).at(-1)?.id ?? 0;

describe("the command line's audit entries", () => {
  const blog = ["--team", "acme", "--project", "blog"];

  it("names every command as changing or showing", () => {
    const program = optstuffProgram({ stdout: { write: () => true }, stderr: { write: () => true } });
    expect(leafCommands(program).sort()).toEqual([...CHANGING, ...SHOWING].sort());
  });

  it("migrates a new database and writes that it did", async () => {
    expect(await optstuff(["migrate", "--json"])).toContain('"applied"');
    const [entry] = await entriesAfter(0);
    expect(entry).toMatchObject({
      action: "instance.migrated",
      actorType: "cli",
      actorLabel: "command line",
      teamId: null,
    });
  });

  it("writes one entry, as the command line, for each change a command makes", async () => {
    let from = await lastId();
    const step = async (args: string[], actions: string[], extraEnv?: Record<string, string>) => {
      const stdout = await optstuff(args, extraEnv);
      const entries = await entriesAfter(from);
      expect(
        entries.map((e) => e.action),
        args.join(" "),
      ).toEqual(actions);
      for (const entry of entries) expect(entry).toMatchObject({ actorType: "cli", actorId: null, ip: null });
      from = entries.at(-1)?.id ?? from;
      return { stdout, entries };
    };
    const made = await step(
      ["bootstrap", ...blog, "--sources", "cdn.example.com", "--json"],
      ["team.created", "project.created", "api_key.created"],
    );
    const publicKey = /"publicKey":\s*"(pk_[^"]+)"/.exec(made.stdout)![1]!;
    // A key's secret never reaches the log, even though the command printed it.
    const secret = /"secretKey":\s*"([^"]+)"/.exec(made.stdout)![1]!;
    expect(JSON.stringify(made.entries)).not.toContain(secret);

    const hosts = await step(["sources", "set", ...blog, "img.example.com"], ["project.updated"]);
    expect(hosts.entries[0]!.changes).toEqual({
      allowedSourceHosts: { from: ["cdn.example.com"], to: ["img.example.com"] },
    });
    await step(["referers", "set", ...blog, "www.example.com"], ["project.updated"]);
    const created = await step(["keys", "create", ...blog, "--name", "ci", "--json"], ["api_key.created"]);
    const ciKey = /"publicKey":\s*"(pk_[^"]+)"/.exec(created.stdout)![1]!;
    const capped = await step(
      ["keys", "caps", ...blog, "--key", ciKey, "--transforms-per-month", "1000", "--mb-per-day", "5", "--json"],
      ["api_key.updated"],
    );
    const cap = { transformsPerDay: null, transformsPerMonth: 1000, bytesPerDay: 5_000_000, bytesPerMonth: null };
    expect(capped.entries[0]!.changes).toEqual({ spendCap: { from: null, to: cap } });
    expect(JSON.parse(capped.stdout)).toMatchObject({ publicKey: ciKey, spendCap: cap, capReached: null });
    // Shown, and shown again: nothing written.
    expect(await step(["keys", "caps", ...blog, "--key", ciKey], [])).toMatchObject({
      stdout: expect.stringMatching(/transforms a month\s+1,000\s+0 \(0 %\)/),
    });
    // A day above the month is refused whole: nothing changes, nothing is written.
    const before = await lastId();
    await expect(optstuff(["keys", "caps", ...blog, "--key", ciKey, "--transforms-per-day", "5000"])).rejects.toThrow(
      /A day's transforms cannot be capped above the month's/,
    );
    await expect(optstuff(["keys", "caps", ...blog, "--key", ciKey, "--mb-per-day", "lots"])).rejects.toThrow(
      /Enter a whole number/,
    );
    expect(await lastId()).toBe(before);
    const cleared = await step(
      ["keys", "caps", ...blog, "--key", ciKey, "--transforms-per-month", "none", "--mb-per-day", "none", "--json"],
      ["api_key.updated"],
    );
    expect(JSON.parse(cleared.stdout)).toMatchObject({ spendCap: null });
    await step(["keys", "rotate", ...blog, "--key", ciKey, "--json"], ["api_key.rotated"]);
    await step(["keys", "revoke", ...blog, "--key", ciKey], ["api_key.revoked"]);
    await step(["purge", ...blog, "--all"], ["cache.purged"]);
    // Asked again, nothing changes and nothing is written.
    await step(["keys", "revoke", ...blog, "--key", ciKey], []);
    await step(["sources", ...blog], []);
    await step(["keys", "list", ...blog], []);
    await step(["teams", "list"], []);
    // An account that lost its authenticator app and its recovery codes (made here as better-auth keeps one).
    await withDatabase(async (db) => {
      await db.insert(user).values({ id: "lost-app", name: "Lost", email: "lost@example.com", twoFactorEnabled: true });
      await db
        .insert(twoFactor)
        .values({ id: "lost-factor", secret: "sealed", backupCodes: "sealed", userId: "lost-app" });
    });
    expect((await step(["accounts", "list"], [])).stdout).toMatch(/lost@example\.com\s+Lost\s+on/);
    const reset = await step(
      ["accounts", "reset-second-factor", "--email", " LOST@example.com"],
      ["account.second_factor_disabled"],
    );
    expect(reset.entries[0]).toMatchObject({ targetId: "lost-app", targetLabel: "lost@example.com" });
    expect(
      await withDatabase(async (db) => ({
        factors: (await db.select().from(twoFactor).where(eq(twoFactor.userId, "lost-app"))).length,
        on: (await db.select().from(user).where(eq(user.id, "lost-app")))[0]!.twoFactorEnabled,
      })),
    ).toEqual({ factors: 0, on: false });
    // Asked again, nothing changes and nothing is written; an unknown or malformed address changes nothing.
    expect((await step(["accounts", "reset-second-factor", "--email", "lost@example.com"], [])).stdout).toContain(
      "has no second factor: nothing changed",
    );
    const unchanged = await lastId();
    await expect(optstuff(["accounts", "reset-second-factor", "--email", "nobody@example.com"])).rejects.toThrow(
      /No account has the address nobody@example\.com/,
    );
    await expect(optstuff(["accounts", "reset-second-factor", "--email", "not an address"])).rejects.toThrow(
      /Enter a valid email address/,
    );
    expect(await lastId()).toBe(unchanged);
    // A team's audit stream: shown (none yet, then one), its cursor moved; refusals change nothing.
    expect((await step(["audit-stream", "--team", "acme"], [])).stdout).toContain('Team "acme" streams no audit log');
    const noStream = await lastId();
    await expect(optstuff(["audit-stream", "--team", "acme", "--reset-to", "now"])).rejects.toThrow(
      /The team streams no audit log/,
    );
    await expect(optstuff(["audit-stream", "--team", "acme", "--reset-to", "yesterday"])).rejects.toThrow(
      /Enter oldest, now or a day such as 2026-01-31/,
    );
    expect(await lastId()).toBe(noStream);
    await withDatabase(async (db) => {
      const [acme] = await db.select().from(teams).where(eq(teams.slug, "acme"));
      await db.insert(auditStreams).values({ teamId: acme!.id, destination: "bucket", cursor: 0 });
    });
    const shown = await step(["audit-stream", "--team", "acme", "--json"], []);
    expect(JSON.parse(shown.stdout)).toMatchObject({ stream: { destination: "bucket", cursor: 0 } });
    expect(JSON.parse(shown.stdout).stream.waiting).toBeGreaterThan(0);
    const moved = await step(
      ["audit-stream", "--team", "acme", "--reset-to", "now", "--json"],
      ["audit_stream.cursor_reset"],
    );
    // Past everything but its own entry, written after the cursor was set.
    expect(JSON.parse(moved.stdout)).toMatchObject({ stream: { waiting: 1 } });
    expect(moved.entries[0]!.changes).toMatchObject({ cursor: { from: 0 } });
    // Stopped by the operator; asked twice, or with a move besides, it changes nothing more.
    const stopped = await step(["audit-stream", "--team", "acme", "--stop"], ["audit_stream.removed"]);
    expect(stopped.stdout).toContain('Team "acme" streams no audit log');
    const afterStop = await lastId();
    await expect(optstuff(["audit-stream", "--team", "acme", "--stop"])).rejects.toThrow(
      /The team streams no audit log/,
    );
    await expect(optstuff(["audit-stream", "--team", "acme", "--stop", "--reset-to", "now"])).rejects.toThrow(
      /cannot be used with option/,
    );
    expect(await lastId()).toBe(afterStop);
    // Without a previous master there is nothing to reseal: nothing changes, nothing is written.
    await step(["reseal"], []);
    if (redis)
      await step(["reset-limits", ...blog, "--key", publicKey], ["api_key.limits_reset"], {
        UPSTASH_REDIS_REST_URL: redis.settings.url,
        UPSTASH_REDIS_REST_TOKEN: redis.settings.token,
      });
  }, 240_000);
});

/**
 * A real PostgreSQL server for benchmarks: the one TEST_DATABASE_URL names, or a throwaway PostgreSQL 15
 * cluster on a free loopback port. Never PGlite: an embedded database says nothing about the server the
 * product runs against, so when neither is available this fails and says why.
 */
import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { freePort } from "../../tools/redis-rest/free-port";

const run = promisify(execFile);

export interface PostgresServer {
  /** A superuser URL: it may create and drop databases. */
  url: string;
  origin: "TEST_DATABASE_URL" | "throwaway cluster";
  /** Stops the throwaway cluster and removes its directory (nothing for TEST_DATABASE_URL). Safe to call twice. */
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresServer> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return { url: given, origin: "TEST_DATABASE_URL", stop: async () => {} };
  return startThrowawayCluster(process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin");
}

async function startThrowawayCluster(bin: string): Promise<PostgresServer> {
  if (!existsSync(path.join(bin, "initdb")) || !existsSync(path.join(bin, "pg_ctl"))) {
    throw new Error(
      `PostgreSQL binaries not found in ${bin}: set TEST_DATABASE_URL to a server, or PG_BIN to the directory holding initdb and pg_ctl`,
    );
  }
  // initdb refuses to run as root: as root, the cluster belongs to the postgres user (as in .ci/run).
  const asRoot = process.getuid?.() === 0;
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);
  const dir = mkdtempSync(path.join(tmpdir(), "optstuff-pg-"));
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  let started = false;
  let stopped = false;

  // The postmaster outlives this process unless stopped on the way out, whatever way that is.
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    if (started) {
      const args = ["-D", data, "-m", "immediate", "stop"];
      spawnSync(
        asRoot ? "runuser" : path.join(bin, "pg_ctl"),
        asRoot ? ["-u", "postgres", "--", path.join(bin, "pg_ctl"), ...args] : args,
        { stdio: "ignore" },
      );
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", stopNow);

  try {
    if (asRoot) await run("chown", ["postgres:postgres", dir]);
    await pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"]);
    const port = await freePort();
    started = true; // from here on a postmaster may be running, even if pg_ctl reports a failure
    // The socket goes in our own directory: the default one may not exist or not be writable.
    await pg("pg_ctl", [
      "-D",
      data,
      "-l",
      log,
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`,
      "-w",
      "-t",
      "30",
      "start",
    ]);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      origin: "throwaway cluster",
      async stop() {
        if (stopped) return;
        // A clean shutdown; if it fails, stopNow tries an immediate one.
        if (
          await pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).then(
            () => true,
            () => false,
          )
        )
          started = false;
        stopNow();
        process.off("exit", stopNow);
      },
    };
  } catch (error) {
    const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-15).join("\n") : "";
    stopNow();
    process.off("exit", stopNow);
    throw new Error(
      `could not start a throwaway PostgreSQL cluster with ${bin} (set TEST_DATABASE_URL to use an existing server)\n${tail}`,
      { cause: error },
    );
  }
}

/**
 * The environment that runs the app on a fresh database of `server` as production does (DATABASE_URL,
 * given secrets), and how to drop it afterwards.
 */
export async function productionDatabaseEnv(
  server: PostgresServer,
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  const name = `optstuff_bench_${randomBytes(6).toString("hex")}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const secret = () => randomBytes(32).toString("base64url");
  return {
    env: {
      DATABASE_URL: url.toString(),
      OPTSTUFF_KEY_ENCRYPTION_SECRET: secret(),
      BETTER_AUTH_SECRET: secret(),
      CRON_SECRET: secret(),
    },
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

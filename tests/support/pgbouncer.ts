import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./browser";

export interface Pooler {
  /** `url` with PgBouncer's address in place of the server's. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer in transaction mode on loopback in front of `url`'s server: what Neon's `-pooler`
 * URL and Supabase's port 6543 are. Each transaction may go to another server session; `poolSize`
 * sessions at most. PgBouncer refuses to run as root: then it drops to the postgres user.
 */
export async function startPgBouncer(url: string, poolSize = 4): Promise<Pooler> {
  const target = new URL(url);
  const dir = mkdtempSync(path.join(tmpdir(), "optstuff-pgbouncer-"));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const user = decodeURIComponent(target.username || "postgres");
  writeFileSync(path.join(dir, "users.txt"), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${poolSize}`,
      "max_client_conn = 200",
      "ignore_startup_parameters = extra_float_digits,options",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  for (const file of ["users.txt", "pgbouncer.ini"]) chmodSync(path.join(dir, file), 0o644);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) spawnSync("chown", ["-R", "postgres", dir]);
  const child: ChildProcess = spawn(
    "pgbouncer",
    [...(asRoot ? ["-u", "postgres"] : []), path.join(dir, "pgbouncer.ini")],
    {
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("pgbouncer did not start");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pooled = new URL(url);
  pooled.hostname = "127.0.0.1";
  pooled.port = String(port);
  return {
    url: pooled.toString(),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

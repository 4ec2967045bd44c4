import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../support/browser";

/**
 * `npm start` (scripts/start.mjs) on a fresh data directory: the server it leaves running has the
 * process settings it needs from its first instruction (serverEnv), and SIGTERM stops the whole tree.
 * On a Node with process.execve the server takes the launcher's place (no 44 MB parent idling beside
 * it); on older Node the launcher stays as the server's parent and passes the signal on. Each Node the
 * run has is tried: this one, and the one CI names in TEST_NODE_EXECVE (24).
 */
const nodes = [process.execPath, process.env.TEST_NODE_EXECVE].filter((node): node is string => !!node);

const argvOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
/** Alive (a zombie is not); a process that ends while it is read is not either. */
const runs = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};

let started: { child: ChildProcess; dataDir: string } | undefined;
afterEach(() => {
  // The launcher leads a process group of its own: a failed test leaves no server or database behind.
  if (started?.child.exitCode === null) process.kill(-started.child.pid!, "SIGKILL");
  if (started) rmSync(started.dataDir, { recursive: true, force: true });
  started = undefined;
});

describe.each(nodes)("npm start's launcher under %s", (node) => {
  it("leaves the server running with its settings, and stops it on SIGTERM", async () => {
    const execve = (await spawnOutput(node, ["-p", "typeof process.execve"])).trim() === "function";
    // The Node CI names for it must have it: else both runs would test the child path.
    if (node === process.env.TEST_NODE_EXECVE) expect(execve).toBe(true);
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "optstuff-start-"));
    // As a user's shell has it: the server's settings come from the launcher, not from here.
    const { MALLOC_ARENA_MAX: _arenas, UV_THREADPOOL_SIZE: _pool, ...env } = process.env;
    const child = spawn(node, ["scripts/start.mjs"], {
      env: {
        ...env,
        PORT: String(port),
        OPTSTUFF_DATA_DIR: dataDir,
        DATABASE_URL: "",
        UPSTASH_REDIS_REST_URL: "",
        UPSTASH_REDIS_REST_TOKEN: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    started = { child, dataDir };
    let printed = "";
    child.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    const deadline = Date.now() + 90_000;
    while (
      !(await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start.mjs did not serve:\n${printed}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(printed).toContain(`OptStuff is starting on http://127.0.0.1:${port}`);
    expect(existsSync(path.join(dataDir, "quickstart.env"))).toBe(true);

    const servers = execve
      ? [child.pid!]
      : childrenOf(child.pid!).filter((pid) => argvOf(pid).includes("scripts/server.mjs"));
    expect(servers).toHaveLength(1);
    const server = servers[0]!;
    expect(argvOf(server).slice(1)).toEqual(["scripts/server.mjs", "--hostname", "127.0.0.1", "--port", String(port)]);
    const environ = environOf(server);
    expect(environ).toContain("MALLOC_ARENA_MAX=2");
    expect(environ).toContain("NEXT_MANUAL_SIG_HANDLE=true");
    expect(environ.some((entry) => /^UV_THREADPOOL_SIZE=\d+$/.test(entry))).toBe(true);
    const database = childrenOf(server).filter((pid) =>
      argvOf(pid).some((arg) => arg.endsWith("embedded-database.mjs")),
    );
    expect(database).toHaveLength(1);

    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([server, ...database].filter(runs)).toEqual([]);
  });
});

function spawnOutput(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("error", reject);
    child.once("exit", () => resolve(out));
  });
}

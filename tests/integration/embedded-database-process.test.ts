import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { servingOwner } from "@/server/db/embedded-lock";

/**
 * The server's embedded database runs in a process of its own (src/server/db/embedded/), reached over a
 * Unix socket by the server and by the command line while the server runs: several connections share
 * PGlite's one session, so each must get its own answers and its own transaction.
 */
const entry = path.resolve("dist/embedded-database.mjs");
const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-dbproc-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const lostReasons: string[] = [];
const serve = (dataDir: string) =>
  openDatabase({ kind: "pglite", dataDir, serve: { entry, onLost: (reason) => lostReasons.push(reason) } });
/** The socket as the command line finds it: in the owner file of the process that serves the directory. */
const socketOf = (dataDir: string) => servingOwner(dataDir)!.socket;
const connect = (dataDir: string, max = 4) =>
  postgres({ path: socketOf(dataDir), username: "postgres", database: "postgres", max, prepare: false });

/** postgres.js answers rows, PGlite in process a result holding them. */
const count = async (handle: DatabaseHandle, table: string) => {
  const result = (await handle.db.execute(sql.raw(`select count(*)::int as n from ${table}`))) as unknown as
    Array<{ n: number }> | { rows: Array<{ n: number }> };
  return (Array.isArray(result) ? result : result.rows)[0]!.n;
};

describe("the embedded database's process", () => {
  it("gives every connection its own answers when their extended queries arrive interleaved", async () => {
    const dataDir = fresh();
    const server = await serve(dataDir);
    const a = connect(dataDir);
    const b = connect(dataDir);
    try {
      // pglite-socket's own queue ran these message by message across connections: measured, 3 of 200
      // failed with two clients of four connections each.
      const answers = await Promise.all(
        Array.from({ length: 400 }, async (_, i) => {
          const client = i % 2 ? a : b;
          const [row] = await client`select ${i}::int as n, ${`text ${i}`}::text as t`;
          return row!.n === i && row!.t === `text ${i}`;
        }),
      );
      expect(answers.filter((ok) => !ok)).toHaveLength(0);
      // A failing query ends its own extended query only; the next ones on both clients are whole.
      await expect(a`select 1/0`).rejects.toThrow(/division by zero/);
      expect((await b`select ${7}::int as n`)[0]!.n).toBe(7);
    } finally {
      await Promise.all([a.end(), b.end()]);
      await server.close();
    }
  }, 60_000);

  it("keeps a transaction to its connection: others wait for it and never see what it rolled back", async () => {
    const dataDir = fresh();
    const server = await serve(dataDir);
    const other = connect(dataDir);
    try {
      await server.db.execute(sql`create table t (x int)`);
      let insideDone = false;
      let inserted!: () => void;
      const insideOpen = new Promise<void>((resolve) => (inserted = resolve));
      const inside = server.db
        .transaction(async (tx) => {
          await tx.execute(sql`insert into t values (1)`);
          inserted();
          // Held open while the other connection asks: its query must wait for the end.
          await new Promise((resolve) => setTimeout(resolve, 300));
          insideDone = true;
          throw new Error("roll back");
        })
        .catch((error: Error) => error.message);
      // Asked once the transaction holds its row, not after a delay that a busy machine can outlast.
      await insideOpen;
      const [seen] = await other`select count(*)::int as n from t`;
      expect(insideDone).toBe(true);
      expect(seen!.n).toBe(0);
      expect(await inside).toBe("roll back");
      // A connection that goes away inside a transaction leaves the session rolled back, not to the next one.
      const reserved = await other.reserve();
      await reserved`begin`;
      await reserved`insert into t values (2)`;
      const client = connect(dataDir, 1);
      const waiting = client`select count(*)::int as n from t`;
      reserved.release();
      await other.end({ timeout: 0 });
      expect((await waiting)[0]!.n).toBe(0);
      await client.end();
      expect(await count(server, "t")).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("owns the directory with a private socket, names the server, and lets it go when the server closes it", async () => {
    const dataDir = fresh();
    const server = await serve(dataDir);
    const socket = socketOf(dataDir);
    expect(socket).toBe(path.join(dataDir, "pglite.sock"));
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(servingOwner(dataDir)).toMatchObject({ serverPid: process.pid, socket, role: "the OptStuff server" });
    // Nothing of the server's environment crosses (its secrets are there) but the allocator's arenas; and
    // PostgreSQL's WebAssembly runs on the baseline compiler (launch.ts says why).
    const pid = servingOwner(dataDir)!.pid;
    if (process.platform === "linux") {
      const environment = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
      // NODE_CHANNEL_*: Node's own, for the IPC channel fork() opens.
      expect(environment.filter((entry) => !entry.startsWith("NODE_CHANNEL_"))).toEqual(["MALLOC_ARENA_MAX=2"]);
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain("--liftoff-only");
    }
    // Another opener (the command line) goes through the process instead of opening the directory.
    const beside = await openDatabase({ kind: "pglite", dataDir });
    await beside.db.execute(sql`create table beside (x int)`);
    await beside.db.execute(sql`insert into beside values (1), (2)`);
    await beside.close();
    expect(await count(server, "beside")).toBe(2);
    await server.close();
    expect(existsSync(socket)).toBe(false);
    expect(servingOwner(dataDir)).toBeNull();
    const after = await openDatabase({ kind: "pglite", dataDir });
    expect(await count(after, "beside")).toBe(2);
    await after.close();
  }, 60_000);

  const longDataDir = () => path.join(fresh(), "a-data-directory-whose-path-is-too-long-for-a-unix-socket-".repeat(2));

  it("puts the socket of a data directory with a long path in a private folder of a name nobody can predict, found through the owner file, and removes it on stop", async () => {
    const dataDir = longDataDir();
    const first = await serve(dataDir);
    const socket = socketOf(dataDir);
    const folder = path.dirname(socket);
    expect(folder).not.toBe(dataDir);
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(100);
    const made = statSync(folder);
    expect(made.uid).toBe(process.getuid!());
    expect(made.mode & 0o777).toBe(0o700);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    // The command line finds it through the owner file, not by computing a name.
    const beside = await openDatabase({ kind: "pglite", dataDir });
    await beside.ping();
    await beside.close();
    // A folder others may enter (made again by someone after a temp cleaner removed ours) is not trusted.
    chmodSync(folder, 0o777);
    expect(servingOwner(dataDir)).toBeNull();
    chmodSync(folder, 0o700);
    await first.close();
    expect(existsSync(folder)).toBe(false);
    // The next start picks another name: there is nothing to compute in advance.
    const second = await serve(dataDir);
    expect(path.dirname(socketOf(dataDir))).not.toBe(folder);
    await second.close();
  }, 60_000);

  it("removes the socket folder a killed database process left in the temp directory when the next one takes over", async () => {
    const dataDir = longDataDir();
    const first = await serve(dataDir);
    const folder = path.dirname(socketOf(dataDir));
    lostReasons.length = 0;
    process.kill(servingOwner(dataDir)!.pid, "SIGKILL");
    const deadline = Date.now() + 15_000;
    while (lostReasons.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    await first.close();
    expect(existsSync(folder)).toBe(true);
    const next = await serve(dataDir);
    expect(existsSync(folder)).toBe(false);
    expect(path.dirname(socketOf(dataDir))).not.toBe(folder);
    await next.close();
  }, 60_000);

  it("starts whatever another user left under the folder name the socket used to be given (a folder others may enter, a file, a symlink)", async () => {
    const dataDir = longDataDir();
    // The name every earlier version derived from the data directory's path, which anyone can compute.
    const predictable = path.join(
      os.tmpdir(),
      `optstuff-db-${createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 16)}`,
    );
    const elsewhere = fresh();
    const traps: Array<[string, () => void]> = [
      ["a folder others may enter", () => (mkdirSync(predictable, { mode: 0o777 }), chmodSync(predictable, 0o777))],
      ["a file", () => writeFileSync(predictable, "")],
      ["a symlink to a folder of theirs", () => symlinkSync(elsewhere, predictable)],
    ];
    try {
      for (const [, lay] of traps) {
        rmSync(predictable, { recursive: true, force: true });
        lay();
        const server = await serve(dataDir);
        const folder = path.dirname(socketOf(dataDir));
        expect(folder).not.toBe(predictable);
        expect(statSync(folder).uid).toBe(process.getuid!());
        expect(statSync(folder).mode & 0o777).toBe(0o700);
        expect(existsSync(path.join(elsewhere, "pglite.sock"))).toBe(false);
        await server.close();
      }
    } finally {
      rmSync(predictable, { recursive: true, force: true });
    }
  }, 60_000);

  it("ends with a server that is killed, releasing the directory, and tells a server whose process was killed", async () => {
    const dataDir = fresh();
    const script = `
      const { openDatabase } = await import("./src/server/db/client.ts");
      await openDatabase({ kind: "pglite", dataDir: ${JSON.stringify(dataDir)}, serve: { entry: ${JSON.stringify(entry)}, onLost: () => {} } });
      console.log("SERVING");
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      parent.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("SERVING") && resolve());
      parent.once("exit", (code) => reject(new Error(`exited with ${code}`)));
    });
    const databasePid = servingOwner(dataDir)!.pid;
    expect(databasePid).not.toBe(parent.pid);
    parent.kill("SIGKILL");
    const deadline = Date.now() + 15_000;
    while (servingOwner(dataDir) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(servingOwner(dataDir)).toBeNull();
    // PGlite closed cleanly: the next owner opens it without taking anything over.
    const next = await serve(dataDir);
    lostReasons.length = 0;
    process.kill(servingOwner(dataDir)!.pid, "SIGKILL");
    while (lostReasons.length === 0 && Date.now() < deadline + 15_000)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lostReasons).toEqual(["it ended (SIGKILL)"]);
    await next.close();
  }, 60_000);
});

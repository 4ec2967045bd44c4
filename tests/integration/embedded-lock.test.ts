import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DatabaseInUseError, lockEmbeddedDatabase, type DatabaseOwner } from "@/server/db/embedded-lock";

/**
 * One owner per embedded database directory, across processes: each contender is a process of its own,
 * as a server and the command line are.
 */
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

interface Contender {
  child: ChildProcess;
  /** "LOCKED" once it holds the lock, or "REFUSED <message>". */
  outcome: Promise<string>;
}

/** A process that takes the directory's lock and holds it until killed. */
function contender(directory: string, role: string): Contender {
  const script = `
    const { lockEmbeddedDatabase } = await import("./src/server/db/embedded-lock.ts");
    try {
      await lockEmbeddedDatabase(${JSON.stringify(directory)}, { role: ${JSON.stringify(role)}, onCompromised: () => {} });
      console.log("LOCKED");
      setInterval(() => {}, 1000);
    } catch (error) {
      console.log("REFUSED " + error.message);
      process.exit(0);
    }`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const outcome = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => (out ? resolve(out.trim()) : reject(new Error(`contender exited with ${code}`))));
  });
  return { child, outcome };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

const fresh = () => mkdtempSync(path.join(tmpdir(), "optstuff-lock-"));

describe("the embedded database's lock", () => {
  it("refuses a second owner while the first runs, naming its role and pid", async () => {
    const directory = fresh();
    const server = contender(directory, "the OptStuff server");
    expect(await server.outcome).toBe("LOCKED");
    const error = await lockEmbeddedDatabase(directory, { role: "test", onCompromised: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatabaseInUseError);
    expect((error as DatabaseInUseError).owner).toMatchObject({ pid: server.child.pid, role: "the OptStuff server" });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^The embedded database in ${directory} is in use by the OptStuff server \\(pid ${server.child.pid}, since `,
      ),
    );
    await killed(server.child);
  });

  it("takes over at once from an owner killed with SIGKILL, and says whose lock it took", async () => {
    const directory = fresh();
    const server = contender(directory, "the OptStuff server");
    expect(await server.outcome).toBe("LOCKED");
    await killed(server.child);
    const taken: Array<DatabaseOwner | null> = [];
    const release = await lockEmbeddedDatabase(directory, {
      role: "test",
      onCompromised: () => {},
      onTakeover: (owner) => taken.push(owner),
    });
    expect(taken).toEqual([expect.objectContaining({ pid: server.child.pid, role: "the OptStuff server" })]);
    expect(JSON.parse(readFileSync(path.join(directory, "pglite.owner.json"), "utf8"))).toMatchObject({
      pid: process.pid,
      role: "test",
    });
    await release();
    expect(existsSync(path.join(directory, "pglite.lock"))).toBe(false);
    expect(existsSync(path.join(directory, "pglite.owner.json"))).toBe(false);
    await (
      await lockEmbeddedDatabase(directory, { role: "again", onCompromised: () => {} })
    )();
  });

  it("lets exactly one of several processes take over a dead owner's lock; the others are told who won", async () => {
    const directory = fresh();
    const dead = contender(directory, "the OptStuff server");
    expect(await dead.outcome).toBe("LOCKED");
    await killed(dead.child);
    const racers = Array.from({ length: 4 }, (_, i) => contender(directory, `racer ${i}`));
    const outcomes = await Promise.all(racers.map((r) => r.outcome));
    const winners = outcomes.flatMap((outcome, i) => (outcome === "LOCKED" ? [i] : []));
    expect(winners).toHaveLength(1);
    const winner = racers[winners[0]!]!;
    for (const outcome of outcomes.filter((o) => o !== "LOCKED"))
      expect(outcome).toContain(`is in use by racer ${winners[0]} (pid ${winner.child.pid}, since `);
    await Promise.all(racers.map((r) => (r.child.exitCode === null ? killed(r.child) : undefined)));
  });

  it("decides nothing from the owner file while another claim is under way, and then names the new owner", async () => {
    const directory = fresh();
    const dead = contender(directory, "the OptStuff server");
    expect(await dead.outcome).toBe("LOCKED");
    await killed(dead.child);
    // Mid-claim, as a takeover leaves it for a moment: the dead owner's lock replaced by a new one whose
    // owner file is not written yet, so the file still names the dead owner.
    const claim = path.join(directory, "pglite.claim.lock");
    mkdirSync(claim);
    rmSync(path.join(directory, "pglite.lock"), { recursive: true });
    mkdirSync(path.join(directory, "pglite.lock"));
    const late = contender(directory, "late");
    let settled = false;
    void late.outcome.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(settled).toBe(false);
    expect(existsSync(path.join(directory, "pglite.lock"))).toBe(true);
    const owner = { pid: process.pid, hostname: hostname(), role: "the claimer", since: new Date().toISOString() };
    writeFileSync(path.join(directory, "pglite.owner.json"), JSON.stringify(owner));
    rmSync(claim, { recursive: true });
    expect(await late.outcome).toContain(`is in use by the claimer (pid ${process.pid}, since `);
  });

  it("never takes over a live owner of this machine, however long its lock went without a refresh", async () => {
    const directory = fresh();
    const server = contender(directory, "the OptStuff server");
    expect(await server.outcome).toBe("LOCKED");
    server.child.kill("SIGSTOP"); // as Ctrl-Z leaves it: alive, refreshing nothing
    try {
      const longAgo = new Date(Date.now() - 120_000);
      utimesSync(path.join(directory, "pglite.lock"), longAgo, longAgo);
      const refused = await lockEmbeddedDatabase(directory, { role: "test", onCompromised: () => {} }).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(DatabaseInUseError);
    } finally {
      server.child.kill("SIGCONT");
    }
    await killed(server.child);
  });

  it("takes over the lock of a pid now another process's (a container's pid 1 after a restart)", async () => {
    const directory = fresh();
    const release = await lockEmbeddedDatabase(directory, { role: "before the restart", onCompromised: () => {} });
    // The same pid, alive, but started at another time than the process that wrote the file.
    const owner = JSON.parse(readFileSync(path.join(directory, "pglite.owner.json"), "utf8")) as DatabaseOwner;
    writeFileSync(path.join(directory, "pglite.owner.json"), JSON.stringify({ ...owner, started: "1" }));
    const taken: Array<DatabaseOwner | null> = [];
    const mine = await lockEmbeddedDatabase(directory, {
      role: "after the restart",
      onCompromised: () => {},
      onTakeover: (o) => taken.push(o),
    });
    expect(taken).toEqual([expect.objectContaining({ pid: process.pid, role: "before the restart" })]);
    // The replaced owner's release leaves the new owner's record alone.
    await release().catch(() => undefined);
    expect(JSON.parse(readFileSync(path.join(directory, "pglite.owner.json"), "utf8"))).toMatchObject({
      role: "after the restart",
    });
    await mine();
  });

  it("leaves another machine's lock alone while it is refreshed, and takes it once 30 s went by without", async () => {
    const directory = fresh();
    const release = await lockEmbeddedDatabase(directory, { role: "elsewhere", onCompromised: () => {} });
    // As another machine sharing the directory would have left it: its pid means nothing here.
    const owner = { pid: 1, hostname: "another-machine", role: "the OptStuff server", since: new Date().toISOString() };
    writeFileSync(path.join(directory, "pglite.owner.json"), JSON.stringify(owner));
    const refused = await lockEmbeddedDatabase(directory, { role: "test", onCompromised: () => {} }).catch(
      (e: unknown) => e,
    );
    expect((refused as Error).message).toContain("in use by the OptStuff server (pid 1 on another-machine, since ");
    const longAgo = new Date(Date.now() - 31_000);
    utimesSync(path.join(directory, "pglite.lock"), longAgo, longAgo);
    const taken: Array<DatabaseOwner | null> = [];
    const mine = await lockEmbeddedDatabase(directory, {
      role: "test",
      onCompromised: () => {},
      onTakeover: (o) => taken.push(o),
    });
    expect(taken).toEqual([owner]);
    await mine();
    await release().catch(() => undefined); // its lock was taken over: nothing of it is left to release
  });
});

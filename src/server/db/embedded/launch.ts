import { fork, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { DatabaseInUseError, type DatabaseOwner } from "../embedded-lock";
import type { DatabaseProcessMessage, DatabaseProcessSettings } from "./protocol";

export interface DatabaseProcessOptions {
  /** The built process script (dist/embedded-database.mjs). */
  entry: string;
  dataDir: string;
  sharedBuffersMb: number;
  role: string;
  onTakeover?(owner: DatabaseOwner | null): void;
  /** The process ended while the server still needed it (killed, or its lock lost). */
  onLost(reason: string): void;
}

export interface DatabaseProcess {
  socket: string;
  pid: number;
  /** Ends the process (it closes PGlite and releases the lock) and waits for it. */
  stop(): Promise<void>;
}

/**
 * PostgreSQL's WebAssembly runs on V8's baseline compiler (Liftoff) only. Tiering hot functions up to
 * TurboFan compiled in the background for the first minute and kept what it allocated doing it: the
 * process held 200-214 MB after a few hundred statements, 135-150 MB without it, while 900 batched
 * inserts took 0.79-1.10 s a round against 0.89-1.31 s (TurboFan's steady rounds 10-20 % quicker, its
 * first slower: the compiling competes). A single instance's statements are small; its memory is what
 * the embedded default is measured by (docs/benchmarks.md). Its allocator gets two arenas, as the
 * server does (`npm start`), not eight a core.
 */
const DATABASE_PROCESS_FLAGS = ["--liftoff-only"];
const DATABASE_PROCESS_ENV: Record<string, string> = { MALLOC_ARENA_MAX: "2" };

/** Long enough for a first start on a slow disk (initdb); a normal start takes about a second. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

/** Starts the database process and waits until it serves, or throws what it said (DatabaseInUseError). */
export async function launchDatabaseProcess(options: DatabaseProcessOptions): Promise<DatabaseProcess> {
  const settings: DatabaseProcessSettings = {
    dataDir: options.dataDir,
    sharedBuffersMb: options.sharedBuffersMb,
    tempDir: tmpdir(),
    role: options.role,
    serverPid: process.pid,
  };
  // No secret crosses: the process needs the directory and nothing of the environment.
  const child = fork(options.entry, [JSON.stringify(settings)], {
    execArgv: DATABASE_PROCESS_FLAGS,
    env: DATABASE_PROCESS_ENV as NodeJS.ProcessEnv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let stopping = false;
  const socket = await started(child, options);
  child.on("message", (message: DatabaseProcessMessage) => {
    if (message.type === "took-over") options.onTakeover?.(message.owner);
    if (message.type === "lost-lock") options.onLost(`it lost the directory's lock: ${message.message}`);
  });
  child.once("exit", (code, signal) => {
    if (!stopping) options.onLost(`it ended (${signal ?? `exit code ${code}`})`);
  });
  return {
    socket,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited.finally(() => clearTimeout(timer));
    },
  };
}

/** Resolves to the socket the process serves on. */
function started(child: ChildProcess, options: DatabaseProcessOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the embedded database process did not start within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    const done = (outcome: Error | string) => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onMessage = (message: DatabaseProcessMessage) => {
      if (message.type === "ready") done(message.socket);
      else if (message.type === "in-use") done(new DatabaseInUseError(options.dataDir, message.owner));
      else if (message.type === "failed") done(new Error(`the embedded database did not open: ${message.message}`));
      else if (message.type === "took-over") options.onTakeover?.(message.owner);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`the embedded database process ended before serving (${signal ?? `exit code ${code}`})`));
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

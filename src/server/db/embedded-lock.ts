import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import { isProcessAlive } from "@/server/process-alive";
import { assertPrivateFolder } from "./embedded/socket-path";

/**
 * An embedded database has one owner at a time. PGlite keeps its pages in the owning process's memory
 * and writes them back on its own schedule: a second process opening the same directory (a second
 * server, or the command line while the server runs) sees a stale database and overwrites what the
 * other wrote. The owner holds `pglite.lock` (proper-lockfile: an atomic mkdir whose mtime it refreshes
 * every 5 s) and says who it is in `pglite.owner.json`.
 *
 * A lock left by an owner that ended without releasing it (kill -9, a crash) is taken over at once
 * when that owner was a process of this machine that no longer runs (its pid gone, or now another
 * process's: a container's pid 1 after a restart), and after 30 s without refresh when it was another
 * machine's (a directory shared over the network). A live owner of this machine is never taken over,
 * however long it went without refreshing (stopped with Ctrl-Z, or its event loop held by a long query).
 *
 * Every claim (taking the lock, and taking it over) runs under a second lock, held for milliseconds,
 * and writes the owner file before letting it go. So whoever reads the owner file under that lock reads
 * the owner of the lock it sees: a claim made in the moment after a takeover removed a dead owner's
 * lock, with the dead owner's file still in place, would otherwise be judged ended and removed too.
 */
export interface DatabaseOwner {
  pid: number;
  /** The process's start as the kernel counts it (Linux): a pid reused by another process differs here. */
  started?: string | null;
  hostname: string;
  /** "the OptStuff server", "optstuff keys create", … */
  role: string;
  since: string;
  /** The Unix socket a server's database process serves the database on (embedded/process-main.ts). */
  socket?: string;
  /** For a server's database process (the owner): the server's pid, which is what an operator stops. */
  serverPid?: number;
}

const DATABASE_IN_USE = Symbol.for("optstuff.DatabaseInUseError");

/** Another process owns the directory: the message names it; the caller says what to do. */
export class DatabaseInUseError extends Error {
  readonly [DATABASE_IN_USE] = true;

  constructor(
    readonly directory: string,
    readonly owner: DatabaseOwner | null,
  ) {
    super(`The embedded database in ${directory} is in use by ${describeOwner(owner)}`);
    this.name = "DatabaseInUseError";
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [DATABASE_IN_USE]?: unknown })[DATABASE_IN_USE] === true
    );
  }
}

const STALE_MS = 30_000;
const REFRESH_MS = 5_000;
/** proper-lockfile never removes the lock itself: only a takeover below does, under its own lock. */
const NEVER_STALE_MS = 10 * 365 * 86_400_000;

export interface LockOptions {
  /** Who asks, as the other side will read it in its refusal. */
  role: string;
  /** Written into the owner file: where this owner serves the database to other processes. */
  socket?: string;
  /** Written into the owner file: the server this owner (its database process) serves. */
  serverPid?: number;
  /** Called when the lock could not be refreshed (its directory removed or unwritable): it is no longer ours. */
  onCompromised(error: Error): void;
  /** Called when the lock of an owner that ended is taken over. */
  onTakeover?(owner: DatabaseOwner | null): void;
}

/** Takes the directory's lock, or throws DatabaseInUseError naming the live owner. Resolves to the release. */
export async function lockEmbeddedDatabase(directory: string, options: LockOptions): Promise<() => Promise<void>> {
  const paths = {
    lock: path.join(directory, "pglite.lock"),
    owner: path.join(directory, "pglite.owner.json"),
    claim: path.join(directory, "pglite.claim.lock"),
  };
  // proper-lockfile keeps its locks by the path given (not the lock's own path): one path per lock.
  const take = () =>
    lockfile.lock(paths.lock, {
      lockfilePath: paths.lock,
      realpath: false,
      stale: NEVER_STALE_MS,
      update: REFRESH_MS,
      onCompromised: options.onCompromised,
    });
  const acquire = async () => {
    const release = await take();
    const me: DatabaseOwner = {
      pid: process.pid,
      started: processStart(process.pid),
      hostname: hostname(),
      role: options.role,
      since: new Date().toISOString(),
      ...(options.socket ? { socket: options.socket } : {}),
      ...(options.serverPid ? { serverPid: options.serverPid } : {}),
    };
    writeFileSync(paths.owner, `${JSON.stringify(me)}\n`, { mode: 0o600 });
    return async () => {
      // After a takeover (the lock lost), the file and the lock are the new owner's: leave them.
      if (sameOwner(readOwner(paths.owner), me)) rmSync(paths.owner, { force: true });
      await release().catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ERELEASED") throw error;
      });
    };
  };
  return claimed(directory, paths, async () => {
    try {
      return await acquire();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    }
    const owner = readOwner(paths.owner);
    if (!ended(owner, paths.lock)) throw new DatabaseInUseError(directory, owner);
    options.onTakeover?.(owner);
    rmSync(paths.lock, { recursive: true, force: true });
    return acquire().catch((error: NodeJS.ErrnoException) => {
      // Taken in the moment between by a process that claims without the claim lock (an older version).
      if (error.code === "ELOCKED") throw new DatabaseInUseError(directory, readOwner(paths.owner));
      throw error;
    });
  });
}

/** Runs a claim under the claim lock: one claim at a time, each one's owner file written before the next looks. */
async function claimed<T>(directory: string, paths: { owner: string; claim: string }, claim: () => Promise<T>) {
  // Held for milliseconds; one left by a process killed mid-claim goes stale after 10 s, which the
  // retries outlast.
  const serialised = await lockfile
    .lock(paths.claim, {
      lockfilePath: paths.claim,
      realpath: false,
      stale: 10_000,
      retries: { retries: 30, minTimeout: 500, maxTimeout: 500, factor: 1 },
      // Held for milliseconds and never refreshed for long: losing it changes nothing for the lock itself.
      onCompromised: () => undefined,
    })
    .catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ELOCKED") throw new DatabaseInUseError(directory, readOwner(paths.owner));
      throw error;
    });
  try {
    return await claim();
  } finally {
    // The claim is made or refused either way; a claim lock that cannot be let go goes stale in 10 s.
    await serialised().catch(() => undefined);
  }
}

/** The owner is gone: a process of this machine that no longer runs, or another machine's lock left for 30 s. */
function ended(owner: DatabaseOwner | null, lockPath: string): boolean {
  if (owner && owner.hostname === hostname()) {
    if (!isProcessAlive(owner.pid)) return true;
    const started = processStart(owner.pid);
    return Boolean(owner.started && started && owner.started !== started);
  }
  try {
    return Date.now() - statSync(lockPath).mtimeMs > STALE_MS;
  } catch {
    return true; // released meanwhile
  }
}

/** Field 22 of /proc/<pid>/stat; null where there is no /proc. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

const sameOwner = (a: DatabaseOwner | null, b: DatabaseOwner) =>
  a !== null && a.pid === b.pid && a.hostname === b.hostname && a.since === b.since;

function readOwner(file: string): DatabaseOwner | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as DatabaseOwner;
  } catch {
    return null;
  }
}

function describeOwner(owner: DatabaseOwner | null): string {
  if (!owner) return "another process";
  const where = owner.hostname === hostname() ? "" : ` on ${owner.hostname}`;
  return `${owner.role} (pid ${owner.serverPid ?? owner.pid}${where}, since ${owner.since})`;
}

/**
 * The live owner of this machine that serves the directory's database on a socket, if there is one. A
 * socket outside the directory counts only in a folder of the owner file's user that nobody else may
 * enter: one removed (a temp cleaner) and made again by someone else would hand them our queries.
 */
export function servingOwner(directory: string): (DatabaseOwner & { socket: string }) | null {
  const ownerFile = path.join(directory, "pglite.owner.json");
  const owner = readOwner(ownerFile);
  if (!owner?.socket || owner.hostname !== hostname() || !isProcessAlive(owner.pid)) return null;
  const folder = path.dirname(owner.socket);
  if (path.resolve(folder) !== path.resolve(directory)) {
    try {
      assertPrivateFolder(folder, statSync(ownerFile).uid);
    } catch {
      return null;
    }
  }
  return owner as DatabaseOwner & { socket: string };
}

/**
 * Waits (up to `timeoutMs`) for a database process whose server is gone to finish closing: it does on
 * its own once the server's channel closes, in well under a second. A server restarted at once after
 * a crash (a supervisor's restart) or a command run then would otherwise find the directory in use.
 */
export async function awaitOrphanedOwner(directory: string, timeoutMs = 15_000): Promise<void> {
  const owner = readOwner(path.join(directory, "pglite.owner.json"));
  if (!owner?.serverPid || owner.hostname !== hostname() || isProcessAlive(owner.serverPid)) return;
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(owner.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

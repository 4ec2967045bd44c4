import { readdirSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

export interface ThreadNiceDeps {
  /** This process's thread ids; null where the system does not list them (only Linux does, in /proc). */
  threadIds(): number[] | null;
  getPriority(threadId: number): number;
  setPriority(threadId: number, nice: number): void;
  /** The thread that answers requests, left at the server's priority. */
  mainId: number;
}

const linux: ThreadNiceDeps = { threadIds: listThreads, getPriority, setPriority, mainId: process.pid };

/**
 * Transforms placed in the server's process run on libuv's pool threads and on the libvips threads
 * those start, which take their creator's nice value. At the server's priority they took the cores
 * from the thread that answers requests: bench:cache's hits during in-process transforms reached p99
 * 78-83 ms, where niced transform processes left 40-55. So from the first job placed here on, every
 * thread but the main one runs niced as the processes do: on Node 20 the pool's threads bear the same
 * name as V8's helpers, so all of them, which also slows, under load, what else runs there (the pool's
 * file reads and host lookups, the download thread, V8's collection helpers). Measured whole, the
 * hits came back to p99 40-52 ms (docs/benchmarks.md). Returns a sweep to run before each in-process
 * job: it nices the threads it has not seen (new libvips threads, a pool started late) and never raises
 * a thread already nicer (a server started under `nice`). On Linux only (a thread id is a process id to
 * setpriority there); elsewhere a sweep does nothing.
 */
export function createThreadNice(nice: number, deps: ThreadNiceDeps = linux): () => void {
  let seen = new Set<number>();
  return () => {
    if (nice <= 0) return;
    const ids = deps.threadIds();
    if (!ids) return;
    for (const id of ids) {
      if (id === deps.mainId || seen.has(id)) continue;
      try {
        if (deps.getPriority(id) < nice) deps.setPriority(id, nice);
      } catch {
        // The thread ended between the listing and now.
      }
    }
    // Only the threads alive now: an id the system hands out again is a new thread, niced anew.
    seen = new Set(ids);
  };
}

function listThreads(): number[] | null {
  try {
    return readdirSync("/proc/self/task").map(Number);
  } catch {
    return null;
  }
}

import { readdirSync } from "node:fs";
import { setPriority } from "node:os";

export interface ThreadNiceDeps {
  /** This process's thread ids; null where the system does not list them (only Linux does, in /proc). */
  threadIds(): number[] | null;
  setPriority(threadId: number, nice: number): void;
  /** The thread that answers requests, left at the server's priority. */
  mainId: number;
}

const linux: ThreadNiceDeps = { threadIds: listThreads, setPriority, mainId: process.pid };

/**
 * Transforms placed in the server's process run on libuv's pool threads and on the libvips threads
 * those start, which take their creator's nice value. At the server's priority they took the cores
 * from the thread that answers requests: bench:cache's hits during in-process transforms reached p99
 * 78-83 ms, where transform processes niced left 45-50. Niced as the processes are, every thread but
 * the main one: on Node 20 the pool's threads bear the same name as V8's helpers, and measured niced
 * together, the hits came back to p99 45 ms. Returns a sweep to run before each in-process job: it nices
 * the threads it has not seen (new libvips threads, a pool started late), a listing and no more otherwise.
 * On Linux only (there a thread id is a process id to setpriority); elsewhere a sweep does nothing.
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
        deps.setPriority(id, nice);
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

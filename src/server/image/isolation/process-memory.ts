import { readFileSync } from "node:fs";

const PAGE_SIZE = 4096;

/**
 * Resident bytes of a process, from /proc (Linux). Read by the server, not reported by the child:
 * a child busy in native code, or one about to be killed for its size, cannot be trusted to say.
 * Null where /proc is absent (the cap is then not enforced; the time budget still is).
 */
export function residentBytes(pid: number): number | null {
  try {
    const statm = readFileSync(`/proc/${pid}/statm`, "latin1");
    const resident = Number(statm.split(" ")[1]);
    return Number.isFinite(resident) ? resident * PAGE_SIZE : null;
  } catch {
    return null;
  }
}

import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A directory of this process's own for bytes that are passed between its parts by path (sources
 * handed to transform processes, their outputs): tmpfs when there is one, so the bytes never touch a
 * disk and stay off every process's heap. Made on first use, so a process that never transforms (the
 * CLI) leaves nothing behind; folders left by servers that died without closing (kill -9) go first.
 */
export interface ScratchDirectory {
  path(): string;
  remove(): void;
}

export function createScratchDirectory(prefix: string): ScratchDirectory {
  let made: string | null = null;
  return {
    path() {
      made ??= makeDirectory(prefix);
      return made;
    },
    remove() {
      if (made) rmSync(made, { recursive: true, force: true });
      made = null;
    },
  };
}

function makeDirectory(prefix: string): string {
  const parent = existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
  const owned = new RegExp(`^${prefix}(\\d+)-`);
  for (const name of readdirSync(parent)) {
    const owner = Number(owned.exec(name)?.[1]);
    if (owner && owner !== process.pid && !isAlive(owner)) rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  return mkdtempSync(path.join(parent, `${prefix}${process.pid}-`));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

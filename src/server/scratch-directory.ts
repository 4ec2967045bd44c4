import { existsSync, mkdtempSync, readdirSync, rmSync, statfsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isProcessAlive } from "./process-alive";

/**
 * A directory of this process's own for bytes that are passed between its parts by path (sources
 * handed to transform processes, their outputs): tmpfs when there is one with room, so the bytes never
 * touch a disk and stay off every process's heap. Made on first use, so a process that never
 * transforms (the CLI) leaves nothing behind; folders left by servers that died without closing
 * (kill -9) go first.
 */
export interface ScratchDirectory {
  path(): string;
  remove(): void;
}

export interface ScratchOptions {
  /** Default /dev/shm. */
  tmpfs?: string;
  /** Free space the tmpfs needs to be used. Default 512 MB. */
  minFreeBytes?: number;
}

export function createScratchDirectory(prefix: string, options: ScratchOptions = {}): ScratchDirectory {
  let made: string | null = null;
  return {
    path() {
      made ??= makeDirectory(prefix, options.tmpfs ?? "/dev/shm", options.minFreeBytes ?? MIN_TMPFS_BYTES);
      return made;
    },
    remove() {
      if (made) rmSync(made, { recursive: true, force: true });
      made = null;
    },
  };
}

/**
 * Below this much free space /dev/shm is not used: a container's default (Docker: 64 MB) would be
 * filled by the source cache alone, and a full tmpfs fails every transform.
 */
const MIN_TMPFS_BYTES = 512 * 2 ** 20;

function makeDirectory(prefix: string, tmpfs: string, minFreeBytes: number): string {
  const parent = roomy(tmpfs, minFreeBytes) ? tmpfs : os.tmpdir();
  const owned = new RegExp(`^${prefix}(\\d+)-`);
  for (const name of readdirSync(parent)) {
    const owner = Number(owned.exec(name)?.[1]);
    if (owner && owner !== process.pid && !isProcessAlive(owner))
      rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  return mkdtempSync(path.join(parent, `${prefix}${process.pid}-`));
}

function roomy(directory: string, minFreeBytes: number): boolean {
  if (!existsSync(directory)) return false;
  const { bavail, bsize } = statfsSync(directory);
  return bavail * bsize >= minFreeBytes;
}

import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { AppError } from "@/server/errors";
import type { FetchedSource } from "./types";

/**
 * Reads `local/<relativePath>` from the local source root (contract §5: off unless configured).
 * The file's real path (symlinks resolved) must stay inside the root's real path, so neither `..`
 * nor a symlink pointing elsewhere can read outside it. The size is checked on the open handle
 * before reading, and the read is bounded by that size, so a file growing meanwhile cannot overrun.
 */
export async function readLocalSource(
  root: string | null,
  relativePath: string,
  maxBytes: number,
): Promise<FetchedSource> {
  const label = `local/${relativePath}`;
  if (root === null) throw new AppError("SOURCE_NOT_ALLOWED", { detail: `${label}: no local source root configured` });
  // parseSource already refuses these; checked again because a location can be built by other code.
  if (relativePath === "" || relativePath.includes("\0") || path.isAbsolute(relativePath)) {
    throw new AppError("SOURCE_NOT_ALLOWED", { detail: `${label}: not a relative path` });
  }
  const realRoot = await realpathOrNotFound(root, `local source root ${root}`);
  const realFile = await realpathOrNotFound(path.resolve(realRoot, relativePath), label);
  if (!isInside(realRoot, realFile))
    throw new AppError("SOURCE_NOT_ALLOWED", { detail: `${label} escapes the local root` });

  // O_NOFOLLOW: if the final component was swapped for a symlink since realpath, refuse to follow it.
  // turbopackIgnore: the root is chosen at run time; without it the build would trace the whole repository.
  const handle = await fs
    .open(/* turbopackIgnore: true */ realFile, constants.O_RDONLY | constants.O_NOFOLLOW)
    .catch((cause: unknown) => {
      throw new AppError("SOURCE_NOT_FOUND", { detail: `${label} cannot be opened`, cause });
    });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new AppError("SOURCE_NOT_FOUND", { detail: `${label} is not a regular file` });
    if (stat.size > maxBytes) {
      throw new AppError("SOURCE_TOO_LARGE", { detail: `${label} is ${stat.size} bytes (limit ${maxBytes})` });
    }
    return { bytes: await readUpTo(handle, stat.size), contentType: null, finalUrl: label };
  } finally {
    await handle.close();
  }
}

async function realpathOrNotFound(target: string, label: string): Promise<string> {
  try {
    return await fs.realpath(target);
  } catch (cause) {
    throw new AppError("SOURCE_NOT_FOUND", { detail: `${label} does not exist`, cause });
  }
}

// A single read may return less than asked; stop at `size` or end of file, whichever comes first.
async function readUpTo(handle: fs.FileHandle, size: number): Promise<Buffer> {
  const bytes = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return bytes.subarray(0, filled);
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  const escapes = relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  return relative !== "" && !escapes;
}

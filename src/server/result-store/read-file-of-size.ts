import { close, closeSync, open, openSync, read, readSync } from "node:fs";
import { readFile } from "node:fs/promises";

/**
 * Up to this size a stored result is read on the server's thread, synchronously. Each round trip to
 * libuv's pool wakes one of its threads, and on this machine kind that wake-up is what a stored hit
 * spent most: open, read and close took 0.27 ms of the main thread a hit (a profile of 8,000 hits of
 * 40 results), where reading the same 30 KB file in place takes 0.05-0.1 ms. A result this small
 * comes from the page cache or one SSD read (~0.1 ms); the bound keeps a miss of the cache on a slow
 * disk from holding the thread for long (the results directory belongs on a local disk:
 * docs/self-hosting.md). Larger results go to the pool: their copy costs more than the hand-off.
 */
export const READ_IN_PLACE_BYTES = 256 * 1024;

/**
 * A file's content when its size is known from the index: one open, one read of that size (plus one
 * byte, to tell a longer file apart) and one close. A file whose size is not `expected` (replaced
 * meanwhile) is read whole the ordinary way. Null when it is gone.
 */
export async function readFileOfSize(file: string, expected: number): Promise<Buffer | null> {
  const known = expected <= READ_IN_PLACE_BYTES ? readInPlace(file, expected) : await readOnPool(file, expected);
  if (known !== "other size") return known;
  return readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
}

function readInPlace(file: string, expected: number): Buffer | null | "other size" {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const buffer = Buffer.allocUnsafe(expected + 1);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
    return bytesRead === expected ? buffer.subarray(0, bytesRead) : "other size";
  } finally {
    closeSync(fd);
  }
}

/** The same on libuv's pool, through the callback API (fs/promises' FileHandle costs more per call). */
function readOnPool(file: string, expected: number): Promise<Buffer | null | "other size"> {
  return new Promise((resolve, reject) => {
    open(file, "r", (opening, fd) => {
      if (opening) return opening.code === "ENOENT" ? resolve(null) : reject(opening);
      const buffer = Buffer.allocUnsafe(expected + 1);
      read(fd, buffer, 0, buffer.length, 0, (reading, bytesRead) => {
        close(fd, () => undefined);
        if (reading) return reject(reading);
        resolve(bytesRead === expected ? buffer.subarray(0, bytesRead) : "other size");
      });
    });
  });
}

import { lstatSync, mkdtempSync, rmdirSync, rmSync } from "node:fs";
import path from "node:path";

/** A Unix socket's path is at most 107 bytes on Linux (103 on macOS); leave room. */
const MAX_SOCKET_PATH = 100;
const SOCKET_NAME = "pglite.sock";
const FOLDER_PREFIX = "optstuff-db-";

export interface SocketPlace {
  socket: string;
  /**
   * Removes the folder made for the socket, with the socket (on stop, and when the process did not get
   * to serve). Nothing for a socket in the data directory: before the lock is ours it is another's.
   */
  remove(): void;
}

/**
 * Where the database process listens: in the data directory (mode 0700, so only its user reaches it),
 * or, when that path would be too long for a socket, in a folder of the temp directory made for this
 * run by mkdtemp (0700, a name nobody can compute in advance). A name derived from the data directory
 * could be taken first by another local user, and the server could then not start. The command line
 * does not compute the path: it reads it from the owner file (embedded-lock.ts). Not XDG_RUNTIME_DIR:
 * it goes with its user's last login session, and a server started from one outlives it.
 */
export function createSocketPlace(dataDir: string, tempDir: string): SocketPlace {
  const inside = path.join(dataDir, SOCKET_NAME);
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return { socket: inside, remove: () => undefined };
  // mkdtemp adds 6 characters to the prefix.
  const longest = path.join(tempDir, `${FOLDER_PREFIX}XXXXXX`, SOCKET_NAME);
  if (Buffer.byteLength(longest) > MAX_SOCKET_PATH)
    throw new Error(
      `the data directory's path and the temp directory (${tempDir}) are both too long for a Unix socket`,
    );
  const folder = mkdtempSync(path.join(tempDir, FOLDER_PREFIX));
  assertPrivateFolder(folder, process.getuid?.());
  const socket = path.join(folder, SOCKET_NAME);
  return { socket, remove: () => removeSocketFolder(socket) };
}

/** A folder a socket may be served from or reached through: a directory of `uid` nobody else may write to. */
export function assertPrivateFolder(folder: string, uid: number | undefined): void {
  const made = lstatSync(folder);
  if (!made.isDirectory() || (uid !== undefined && made.uid !== uid) || (made.mode & 0o077) !== 0)
    throw new Error(`${folder} must be a directory of this user that nobody else can enter`);
}

/**
 * Removes a socket and the temp folder made for it (also one an owner killed before removing its own
 * left, found on takeover). Only a private folder of ours by its name and owner, and only when empty:
 * the path may come from an owner file.
 */
export function removeSocketFolder(socket: string): void {
  const folder = path.dirname(socket);
  if (path.basename(socket) !== SOCKET_NAME || !path.basename(folder).startsWith(FOLDER_PREFIX)) return;
  try {
    assertPrivateFolder(folder, process.getuid?.());
    rmSync(socket, { force: true });
    rmdirSync(folder);
  } catch {
    // Gone already, not ours, or not empty: not ours to clear.
  }
}

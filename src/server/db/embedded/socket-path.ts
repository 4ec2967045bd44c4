import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";

/** A Unix socket's path is at most 107 bytes on Linux (103 on macOS); leave room. */
const MAX_SOCKET_PATH = 100;

/**
 * Where the server's database process listens: in the data directory (mode 0700, so only its user
 * reaches it), or, when that path would be too long for a socket, in a directory of the temp folder
 * named after the data directory and made 0700 the same way. The command line computes the same path.
 */
export function embeddedSocketPath(dataDir: string): string {
  const inside = path.join(dataDir, "pglite.sock");
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const name = createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 16);
  return path.join(tmpdir(), `optstuff-db-${name}`, "pglite.sock");
}

import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { lockEmbeddedDatabase, type DatabaseOwner } from "../embedded-lock";

export interface OwnerOptions {
  role: string;
  /** The Unix socket this owner serves the database on, for the command line to find (process-main.ts). */
  socket?: string;
  /** The server whose database process this is. */
  serverPid?: number;
  /** What to do when the lock was lost (see lockEmbeddedDatabase); default: throw. */
  onCompromised?(error: Error): void;
  onTakeover?(owner: DatabaseOwner | null): void;
}

/**
 * PGlite keeps PostgreSQL's buffer pool inside its WebAssembly memory, all of it resident, and that
 * memory never shrinks: the default 128 MB pool was most of the embedded server's idle footprint.
 * 16 MB holds a small deployment's working set (pages it misses come from the OS page cache); measured
 * in bare Node, reopening a data directory idled at 316 MB by default and 194 MB with 16 MB, with the
 * same durability (the pool is a cache; commits still reach the WAL). Passed as a start parameter, not
 * written into postgresql.conf, so a later start can choose again (OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB).
 */
export const DEFAULT_SHARED_BUFFERS_MB = 16;

/** Opens PGlite on a directory it then owns (embedded-lock.ts), or in memory when dataDir is null. */
export async function openPglite(
  dataDir: string | null,
  sharedBuffersMb: number,
  owner: OwnerOptions = { role: "another process" },
): Promise<{ client: PGlite; close(): Promise<void> }> {
  const { PGlite } = await import("@electric-sql/pglite");
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const release = dataDir
    ? await lockEmbeddedDatabase(dataDir, {
        role: owner.role,
        socket: owner.socket,
        serverPid: owner.serverPid,
        onCompromised:
          owner.onCompromised ??
          ((error) => {
            throw error;
          }),
        onTakeover: owner.onTakeover,
      })
    : async () => {};
  try {
    const options = { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffersMb}MB`] };
    const client = dataDir ? new PGlite(path.join(dataDir, "pglite"), options) : new PGlite(options);
    await client.waitReady;
    return {
      client,
      close: async () => {
        try {
          await client.close();
        } finally {
          await release();
        }
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { lockEmbeddedDatabase, type DatabaseOwner } from "../embedded-lock";
import { clusterTemplateFile, openCluster } from "./cluster-template";

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
 * Opens PGlite on a directory it then owns (embedded-lock.ts), or in memory when dataDir is null (from
 * `template`, a dump of another database, when given). A new directory's cluster comes from
 * `clusterTemplate` (cluster-template.ts) when it can.
 */
export async function openPglite(
  dataDir: string | null,
  sharedBuffersMb: number,
  owner: OwnerOptions = { role: "another process" },
  template?: Blob,
  clusterTemplate: () => string | null = () => clusterTemplateFile(),
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
    const client = dataDir
      ? await openCluster(PGlite, path.join(dataDir, "pglite"), options, clusterTemplate)
      : await PGlite.create({ ...options, loadDataDir: template });
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

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { PGlite, PGliteOptions } from "@electric-sql/pglite";

/**
 * A new embedded database starts from a copy of a new cluster instead of running initdb: PGlite's
 * initdb takes 4.6 s on this machine kind, loading its dump 1.0 s (PGlite's own `loadDataDir`, as its
 * `clone()` does). The first database made on an install is made by initdb and dumped, before any
 * migration, to `node_modules/.cache/optstuff/`; each later one (a demo, a second instance, every test
 * that starts a server) loads that dump. The dump is named by the installed PGlite's WebAssembly file
 * (size and time), so an upgrade makes a new one; one that does not load is removed and initdb runs.
 */
export function clusterTemplateFile(root = process.cwd()): string | null {
  const wasm = statSync(path.join(root, "node_modules/@electric-sql/pglite/dist/pglite.wasm"), {
    throwIfNoEntry: false,
  });
  if (!wasm) return null;
  return path.join(root, "node_modules/.cache/optstuff", `pglite-cluster-${wasm.size}-${Math.trunc(wasm.mtimeMs)}.tar`);
}

/**
 * Opens PGlite on `pgdata`. A directory that does not exist yet gets a new cluster: from `template` when
 * that file exists and loads, else by initdb, and then `template` is written from it for the next one.
 */
export async function openCluster(
  Client: typeof PGlite,
  pgdata: string,
  options: PGliteOptions,
  template: string | null,
): Promise<PGlite> {
  const isNew = !existsSync(pgdata);
  if (isNew && template && existsSync(template)) {
    const client = new Client(pgdata, { ...options, loadDataDir: new Blob([readFileSync(template)]) });
    try {
      await client.waitReady;
      return client;
    } catch {
      // A dump cut short or from another PGlite: forget it, and make the cluster (and the dump) anew.
      await client.close().catch(() => {});
      rmSync(pgdata, { recursive: true, force: true });
      rmSync(template, { force: true });
    }
  }
  const client = new Client(pgdata, options);
  await client.waitReady;
  if (isNew && template) await saveTemplate(client, template);
  return client;
}

/** Written beside and renamed into place: two first databases made at once never leave half a dump. */
async function saveTemplate(client: PGlite, template: string): Promise<void> {
  const temporary = `${template}.${process.pid}.tmp`;
  try {
    const dump = await client.dumpDataDir("none");
    mkdirSync(path.dirname(template), { recursive: true });
    writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()));
    renameSync(temporary, template);
  } catch {
    // Only a head start for the next database is lost (a read-only install, a full disk).
    rmSync(temporary, { force: true });
  }
}

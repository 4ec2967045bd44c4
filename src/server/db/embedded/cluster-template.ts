import { existsSync, mkdirSync, openAsBlob, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { PGlite, PGliteOptions } from "@electric-sql/pglite";
import { writeFileReplacing } from "../../write-file-replacing";

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
 * Opens PGlite on `pgdata`, ready. A directory that does not exist yet gets a new cluster: from the
 * template file (asked for only then) when it exists and loads, else by initdb, and then the template is
 * written from it for the next one.
 */
export async function openCluster(
  Client: typeof PGlite,
  pgdata: string,
  options: PGliteOptions,
  templateFile: () => string | null,
): Promise<PGlite> {
  const isNew = !existsSync(pgdata);
  const template = isNew ? templateFile() : null;
  if (template && existsSync(template)) {
    const client = new Client(pgdata, { ...options, loadDataDir: await openAsBlob(template) });
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
  if (template) await saveTemplate(client, template);
  return client;
}

/** Replaced whole: two first databases made at once never leave half a dump. */
async function saveTemplate(client: PGlite, template: string): Promise<void> {
  try {
    const dump = await client.dumpDataDir("none");
    mkdirSync(path.dirname(template), { recursive: true });
    writeFileReplacing(template, new Uint8Array(await dump.arrayBuffer()));
  } catch {
    // Only a head start for the next database is lost (a read-only install, a full disk).
  }
}

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { bootstrapProject, startServedApp, type ServedApp } from "./browser";
import { signedFor } from "./signed-url";

export interface ServedLocalSources {
  /** The running app (after the suite's beforeAll). */
  readonly app: ServedApp;
  /** The bootstrapped project's credentials (OPTSTUFF_*). */
  readonly vars: Record<string, string>;
  /** A signed URL of the running app for `local/<name>`. */
  signed(operations: string, source: string, exp?: number): string;
}

/**
 * The built app serving `local/…` sources from a temporary folder that holds `files` (name → content),
 * with a bootstrapped demo project: registers the suite's beforeAll (write, start) and afterAll (stop,
 * remove the folder), so each served suite states only its files and settings.
 */
export function serveLocalSources(
  files: () => Promise<Record<string, Buffer | string>> | Record<string, Buffer | string>,
  env: Record<string, string> = {},
  server: "npm start" | "next start" = "npm start",
): ServedLocalSources {
  const root = mkdtempSync(path.join(os.tmpdir(), "optstuff-served-sources-"));
  let app: ServedApp | undefined;
  let vars: Record<string, string> = {};

  beforeAll(async () => {
    for (const [name, content] of Object.entries(await files())) writeFileSync(path.join(root, name), content);
    app = await startServedApp(
      { OPTSTUFF_LOCAL_SOURCE_ROOT: root, ...env },
      (dataDir) => {
        vars = bootstrapProject(dataDir);
      },
      server,
    );
  });

  afterAll(async () => {
    await app?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const running = (): ServedApp => {
    if (!app) throw new Error("the served app starts in beforeAll");
    return app;
  };
  return {
    get app() {
      return running();
    },
    get vars() {
      return vars;
    },
    signed: (operations, source, exp) => signedFor(running().baseUrl, vars, operations, source, exp),
  };
}

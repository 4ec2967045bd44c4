import path from "node:path";
import { createFileStore } from "./file-store";
import { createObjectNames } from "./object-names";
import type { ResultStore, ResultStoreSettings } from "./types";

/** A store call that takes longer is abandoned (failure-policy.ts: the request transforms instead). */
const S3_CALL_TIMEOUT_MS = 10_000;

export interface ResultStoreDeps {
  /** OPTSTUFF_KEY_ENCRYPTION_SECRET: a bucket's object names are keyed by it (object-names.ts). */
  masterSecret: string;
  /** For a bucket's pruning: the team of each project (files learn it from their writes). */
  teamsOf?: (projectIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;
}

/** Builds the configured store; the S3 client is only loaded when a bucket is configured. */
export async function createResultStore(settings: ResultStoreSettings, deps: ResultStoreDeps): Promise<ResultStore> {
  if (settings.kind === "files")
    return createFileStore({ root: path.resolve(settings.root), maxBytes: settings.maxBytes });
  const { createS3Store } = await import("./s3-store");
  const { kind: _kind, ...options } = settings;
  return createS3Store({
    ...options,
    names: createObjectNames(deps.masterSecret),
    timeoutMs: S3_CALL_TIMEOUT_MS,
    teamsOf: deps.teamsOf,
  });
}

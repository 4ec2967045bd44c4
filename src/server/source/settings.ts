import path from "node:path";
import { flag, group, integer, text, type ValuesOf } from "@/server/config/setting";
import type { FetchLimits } from "./types";

/** How sources are fetched, and how long a downloaded one is kept for the next width of the same photo. */
export const sourceSettings = group("Sources", {
  OPTSTUFF_LOCAL_SOURCE_ROOT: text({
    defaultText: "off (the embedded default serves ./demo)",
    doc: "A directory served as `local/<path>` sources.",
  }),
  OPTSTUFF_ALLOW_LOOPBACK_SOURCES: flag({ doc: "Allow loopback origins: development and tests only." }),
  OPTSTUFF_MAX_SOURCE_BYTES: integer({ default: 25 * 1024 * 1024, min: 1, doc: "The largest source, in bytes." }),
  OPTSTUFF_FETCH_TIMEOUT_MS: integer({ default: 10_000, min: 1, doc: "A source's download budget, in ms." }),
  OPTSTUFF_MAX_REDIRECTS: integer({ default: 3, min: 0, doc: "Redirects followed per source." }),
  OPTSTUFF_SOURCE_CACHE_BYTES: integer({
    default: 64 * 1024 * 1024,
    min: 0,
    doc: "Downloaded sources kept, as files on /dev/shm (memory, off the server's heap), so one photo's srcset widths share a download; 0 downloads every time.",
  }),
});

export type SourceValues = ValuesOf<typeof sourceSettings>;

/** Written by the build beside the transform worker: remote sources are downloaded in a worker thread. */
export const DOWNLOAD_THREAD_ENTRY = "dist/source-download-thread.mjs";

export const fetchLimitsOf = (v: SourceValues): FetchLimits => ({
  maxBytes: v.OPTSTUFF_MAX_SOURCE_BYTES,
  timeoutMs: v.OPTSTUFF_FETCH_TIMEOUT_MS,
  maxRedirects: v.OPTSTUFF_MAX_REDIRECTS,
  allowLoopback: v.OPTSTUFF_ALLOW_LOOPBACK_SOURCES,
});

/** `local/<path>` sources' directory: the embedded default serves the committed demo images (the quickstart works offline). */
export function localSourceRootOf(v: SourceValues, embedded: boolean): string | null {
  if (v.OPTSTUFF_LOCAL_SOURCE_ROOT) return path.resolve(v.OPTSTUFF_LOCAL_SOURCE_ROOT);
  return embedded ? path.resolve("demo") : null;
}

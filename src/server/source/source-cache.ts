import { linkSync, writeFileSync } from "node:fs";
import { unlink } from "node:fs/promises";
import path from "node:path";
import CachePolicy from "http-cache-semantics";
import { createScratchDirectory, type ScratchDirectory } from "@/server/scratch-directory";
import { createSingleFlight } from "@/server/single-flight";
import type { Downloaded, SourceDownloader } from "./download-thread/download-thread";
import { SOURCE_REQUEST_HEADERS } from "./http-exchange";
import type { FetchOptions, SourceFetcher, SourceLocation } from "./types";

export type SourceReuse = "fresh" | "revalidated" | "downloaded";

/** A source's bytes in a file of the cache's directory, the caller's own until it calls `release`. */
export interface SourceFile {
  path: string;
  size: number;
  /**
   * The file's content, when this fetch downloaded it: already in memory, shared by the callers of one
   * download (never write into it; a caller may drop its reference). A source the cache had is read
   * from its file.
   */
  bytes?: Buffer;
  release(): void;
}

/** The fetch options, and the project's source hosts as data for a download in another thread. */
export type SourceFetchOptions = FetchOptions & { sourceHosts?: readonly string[] };

export interface CachedSource {
  file: SourceFile;
  finalUrl: string;
  reuse: SourceReuse;
}

export interface SourceCache {
  /**
   * The source, as a file: from the cache while the origin's Cache-Control says it is fresh, after a
   * conditional request once it is stale (304 keeps it), else downloaded. Concurrent calls with one
   * key share one download. `key` is the caller's (it carries the project's purge generation and source
   * policy): this module never interprets it.
   */
  fetch(
    key: string,
    location: SourceLocation,
    options: SourceFetchOptions,
    fetcher: SourceFetcher,
  ): Promise<CachedSource>;
  stats(): { entries: number; bytes: number; fresh: number; revalidated: number; downloaded: number };
  /** Removes the files (the callers' included). */
  close(): void;
}

interface Entry {
  path: string;
  size: number;
  finalUrl: string;
  policy: CachePolicy | null;
}

interface Loaded {
  entry: Entry;
  reuse: SourceReuse;
  /** What was downloaded now (not for a fresh or revalidated copy). */
  bytes?: Buffer;
  /** Not kept (not storable, too large, or a local file): removed once every caller has its link. */
  kept: boolean;
}

/**
 * Recently downloaded originals, so the widths of one photo (a srcset) share one download. The
 * freshness rules are RFC 9111's as a shared cache applies them (http-cache-semantics: s-maxage,
 * max-age, Expires, the Last-Modified heuristic, no-store, private), not ours. Bounded by bytes, least
 * recently used out. Originals live in files on tmpfs, not on the heap: held buffers of several MB
 * kept V8's external memory at its limit and the server's thread in full collections (bench:image,
 * docs/benchmarks.md), and a transform process reads the file directly. Each caller gets its own hard
 * link, so an original evicted while a transform reads it stays readable until that caller releases it.
 */
export interface SourceCacheOptions {
  maxBytes: number;
  directory?: ScratchDirectory;
  /** Where remote sources are downloaded straight into their file (download-thread/); default: the fetcher, here. */
  downloader?: SourceDownloader;
}

export function createSourceCache(options: SourceCacheOptions): SourceCache {
  const directory = options.directory ?? createScratchDirectory("optstuff-sources-");
  const entries = new Map<string, Entry>();
  const inflight = createSingleFlight<Loaded>();
  let bytes = 0;
  let sequence = 0;
  const counts = { fresh: 0, revalidated: 0, downloaded: 0 };
  // A file of our scratch directory at run time: nothing for the build's tracer to follow (unignored,
  // it traced the whole project, the data directory's secrets included, into every function).
  const nextPath = (suffix: string) => path.join(/*turbopackIgnore: true*/ directory.path(), `${++sequence}.${suffix}`);
  const remove = (file: string) => void unlink(file).catch(() => {});

  function remember(key: string, entry: Entry): boolean {
    const existing = entries.get(key);
    if (existing) {
      entries.delete(key);
      bytes -= existing.size;
      if (existing.path !== entry.path) remove(existing.path);
    }
    // One original larger than a quarter of the cache would flush everything else.
    if (!entry.policy?.storable() || entry.size > options.maxBytes / 4) return false;
    entries.set(key, entry);
    bytes += entry.size;
    for (const [oldest, old] of entries) {
      if (bytes <= options.maxBytes) break;
      entries.delete(oldest);
      bytes -= old.size;
      remove(old.path);
    }
    return true;
  }

  async function load(
    key: string,
    location: SourceLocation,
    fetchOptions: SourceFetchOptions,
    fetcher: SourceFetcher,
  ): Promise<Loaded> {
    if (location.kind === "local") {
      // Read from disk each time: that is as cheap as a copy.
      const file = nextPath("src");
      const { size, finalUrl, bytes } = await download(location, fetchOptions, fetcher, file);
      return { entry: { path: file, size, finalUrl, policy: null }, reuse: "downloaded", kept: false, bytes };
    }
    const request = requestOf(location);
    const held = entries.get(key);
    if (held?.policy?.satisfiesWithoutRevalidation(request)) {
      remember(key, held); // most recently used
      counts.fresh++;
      return { entry: held, reuse: "fresh", kept: true };
    }
    const validators = held?.policy ? conditionalOf(held.policy.revalidationHeaders(request)) : undefined;
    const file = nextPath("src");
    const fetched = await download(location, { ...fetchOptions, conditional: validators }, fetcher, file);
    if (held?.policy && fetched.notModified && fetched.response) {
      const { policy } = held.policy.revalidatedPolicy(request, fetched.response);
      const entry = { ...held, policy };
      counts.revalidated++;
      return { entry, reuse: "revalidated", kept: remember(key, entry) };
    }
    const policy = fetched.response ? new CachePolicy(request, fetched.response, { shared: true }) : null;
    const entry = { path: file, size: fetched.size, finalUrl: fetched.finalUrl, policy };
    counts.downloaded++;
    return { entry, reuse: "downloaded", kept: remember(key, entry), bytes: fetched.bytes };
  }

  /** The source into `file`: in the download thread for remote sources when there is one, else here. */
  async function download(
    location: SourceLocation,
    fetchOptions: SourceFetchOptions,
    fetcher: SourceFetcher,
    file: string,
  ): Promise<Downloaded> {
    if (location.kind === "remote" && options.downloader) {
      return options.downloader(
        { url: location.url.href, sourceHosts: fetchOptions.sourceHosts, conditional: fetchOptions.conditional },
        file,
      );
    }
    const { bytes, ...fetched } = await fetcher.fetch(location, fetchOptions);
    if (fetched.notModified) return { ...fetched, size: 0 };
    // Synchronous: a few MB into tmpfs is a copy in memory.
    writeFileSync(file, bytes);
    return { ...fetched, size: bytes.length, bytes };
  }

  /** The caller's own name for the original: linked at once, before anything can evict it. */
  function handOut({ entry, reuse, bytes }: Loaded): CachedSource {
    const own = nextPath("in");
    linkSync(entry.path, own);
    const file = { path: own, size: entry.size, ...(bytes && { bytes }), release: () => remove(own) };
    return { file, finalUrl: entry.finalUrl, reuse };
  }

  return {
    async fetch(key, location, fetchOptions, fetcher) {
      const job = inflight.run(key, () => {
        const started = load(key, location, fetchOptions, fetcher);
        // Every caller waiting on this job links its copy in the microtasks that follow it: the file
        // of an original that is not kept goes after them.
        void started.then(
          (loaded) => setImmediate(() => (loaded.kept ? undefined : remove(loaded.entry.path))),
          () => undefined,
        );
        return started;
      });
      return handOut(await job);
    },
    stats: () => ({ entries: entries.size, bytes, ...counts }),
    close: () => directory.remove(),
  };
}

/** The request the cache policy reasons about: the URL's, or for a bucket object its alias and key. */
function requestOf(location: Exclude<SourceLocation, { kind: "local" }>): CachePolicy.Request {
  if (location.kind === "bucket")
    return { url: `/${location.key}`, method: "GET", headers: { host: `${location.alias}.s3` } };
  const { url } = location;
  return {
    url: `${url.pathname}${url.search}`,
    method: "GET",
    headers: { host: url.host, accept: SOURCE_REQUEST_HEADERS.Accept },
  };
}

/** Only the validators: nothing else of the policy's revalidation headers is ours to send. */
function conditionalOf(headers: Record<string, string | string[] | undefined>): FetchOptions["conditional"] {
  const ifNoneMatch = headers["if-none-match"];
  const ifModifiedSince = headers["if-modified-since"];
  const conditional = {
    ...(typeof ifNoneMatch === "string" ? { ifNoneMatch } : {}),
    ...(typeof ifModifiedSince === "string" ? { ifModifiedSince } : {}),
  };
  return Object.keys(conditional).length > 0 ? conditional : undefined;
}

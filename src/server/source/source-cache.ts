import CachePolicy from "http-cache-semantics";
import { SOURCE_REQUEST_HEADERS } from "./http-exchange";
import type { FetchedSource, FetchOptions, SourceFetcher, SourceLocation } from "./types";

export type SourceReuse = "fresh" | "revalidated" | "downloaded";

export interface SourceCache {
  /**
   * The source's bytes: from memory while the origin's Cache-Control says they are fresh, after a
   * conditional request once they are stale (304 keeps them), else downloaded. Concurrent calls with
   * one key share one download. `key` is the caller's (it carries the project's purge generation and
   * source policy): this module never interprets it.
   */
  fetch(key: string, location: SourceLocation, options: FetchOptions, fetcher: SourceFetcher): Promise<FetchedSource & { reuse: SourceReuse }>;
  stats(): { entries: number; bytes: number; fresh: number; revalidated: number; downloaded: number };
}

interface Entry {
  source: FetchedSource;
  policy: CachePolicy;
}

/**
 * Recently downloaded originals, so the widths of one photo (a srcset) share one download. The
 * freshness rules are RFC 9111's as a shared cache applies them (http-cache-semantics: s-maxage,
 * max-age, Expires, the Last-Modified heuristic, no-store, private), not ours. Local sources are read
 * from disk each time: that is as cheap as a copy. Bounded by bytes, least recently used out.
 */
export function createSourceCache(options: { maxBytes: number }): SourceCache {
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<FetchedSource & { reuse: SourceReuse }>>();
  let bytes = 0;
  const counts = { fresh: 0, revalidated: 0, downloaded: 0 };

  function remember(key: string, entry: Entry): void {
    forget(key);
    // One original larger than a quarter of the cache would flush everything else.
    if (!entry.policy.storable() || entry.source.bytes.length > options.maxBytes / 4) return;
    entries.set(key, entry);
    bytes += entry.source.bytes.length;
    for (const [oldest, { source }] of entries) {
      if (bytes <= options.maxBytes) break;
      entries.delete(oldest);
      bytes -= source.bytes.length;
    }
  }

  function forget(key: string): void {
    const existing = entries.get(key);
    if (!existing) return;
    entries.delete(key);
    bytes -= existing.source.bytes.length;
  }

  async function load(key: string, location: Exclude<SourceLocation, { kind: "local" }>, fetchOptions: FetchOptions, fetcher: SourceFetcher) {
    const request = requestOf(location);
    const held = entries.get(key);
    if (held && held.policy.satisfiesWithoutRevalidation(request)) {
      remember(key, held); // most recently used
      counts.fresh++;
      return { ...held.source, reuse: "fresh" as const };
    }
    const validators = held ? conditionalOf(held.policy.revalidationHeaders(request)) : undefined;
    const fetched = await fetcher.fetch(location, { ...fetchOptions, conditional: validators });
    if (held && fetched.notModified && fetched.response) {
      const { policy } = held.policy.revalidatedPolicy(request, fetched.response);
      remember(key, { source: held.source, policy });
      counts.revalidated++;
      return { ...held.source, reuse: "revalidated" as const };
    }
    if (fetched.response) remember(key, { source: fetched, policy: new CachePolicy(request, fetched.response, { shared: true }) });
    counts.downloaded++;
    return { ...fetched, reuse: "downloaded" as const };
  }

  return {
    async fetch(key, location, fetchOptions, fetcher) {
      if (location.kind === "local") return { ...(await fetcher.fetch(location, fetchOptions)), reuse: "downloaded" };
      const running = inflight.get(key);
      if (running) return running;
      const job = load(key, location, fetchOptions, fetcher).finally(() => inflight.delete(key));
      inflight.set(key, job);
      return job;
    },
    stats: () => ({ entries: entries.size, bytes, ...counts }),
  };
}

/** The request the cache policy reasons about: the URL's, or for a bucket object its alias and key. */
function requestOf(location: Exclude<SourceLocation, { kind: "local" }>): CachePolicy.Request {
  if (location.kind === "bucket") return { url: `/${location.key}`, method: "GET", headers: { host: `${location.alias}.s3` } };
  const { url } = location;
  return { url: `${url.pathname}${url.search}`, method: "GET", headers: { host: url.host, accept: SOURCE_REQUEST_HEADERS.Accept } };
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

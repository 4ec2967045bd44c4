import { existsSync, readdirSync, readFileSync } from "node:fs";
import type http from "node:http";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createSourceFetcher, parseSource } from "@/server/source";
import { createScratchDirectory } from "@/server/scratch-directory";
import { createDownloadThread } from "@/server/source/download-thread/download-thread";
import {
  createSourceCache as createCache,
  type CachedSource,
  type SourceCacheOptions,
} from "@/server/source/source-cache";
import { TEST_DOWNLOAD_THREAD } from "../../support/app";
import { startOrigin, type Origin } from "../../support/origin";

const fetcher = createSourceFetcher({
  limits: { maxBytes: 1_000_000, timeoutMs: 5_000, maxRedirects: 3, allowLoopback: true },
  localRoot: null,
});
let origin: Origin;
let body = Buffer.alloc(10_000, 1);
let headers: Record<string, string> = {};

/** An origin that honours If-None-Match and If-Modified-Since like a CDN would. */
function photo(request: http.IncomingMessage, response: http.ServerResponse): void {
  const etag = headers.ETag;
  const modified = headers["Last-Modified"];
  if (
    (etag && request.headers["if-none-match"] === etag) ||
    (modified && request.headers["if-modified-since"] === modified)
  ) {
    response.writeHead(304, headers).end();
    return;
  }
  response.writeHead(200, { "Content-Type": "image/jpeg", "Content-Length": body.length, ...headers }).end(body);
}

beforeAll(async () => {
  origin = await startOrigin({ "/photo.jpg": photo, "/missing.jpg": (_q, r) => void r.writeHead(404).end() });
});
const thread = createDownloadThread({
  entry: TEST_DOWNLOAD_THREAD,
  limits: { maxBytes: 1_000_000, timeoutMs: 5_000, maxRedirects: 3, allowLoopback: true },
});
afterAll(async () => {
  await origin.close();
  await thread.close();
});
afterEach(() => vi.useRealTimers());

/** What the caller was handed: the file's bytes. */
const bytesOf = (source: CachedSource) => readFileSync(source.file.path);
const location = () => parseSource(`http://${origin.host}/photo.jpg`);
const requestsSince = (before: number) => origin.requests.slice(before);

// The same behaviour whether remote sources are downloaded on this thread or in the download thread.
describe.each([
  ["downloaded here", undefined],
  ["downloaded in the download thread", thread.download],
] as const)("source cache, %s", (_name, downloader) => {
  const createSourceCache = (options: SourceCacheOptions) => createCache({ ...options, downloader });

  it("shares one download between concurrent fetches of one source", async () => {
    headers = { "Cache-Control": "max-age=60" };
    const cache = createSourceCache({ maxBytes: 1_000_000 });
    const before = origin.requests.length;
    const results = await Promise.all(Array.from({ length: 8 }, () => cache.fetch("k", location(), {}, fetcher)));
    expect(requestsSince(before)).toHaveLength(1);
    expect(results.every((r) => bytesOf(r).equals(body))).toBe(true);
    // The download's bytes come with every file, one buffer for all of them: nobody reads the file back.
    const [first] = results;
    expect(first!.file.bytes?.equals(body)).toBe(true);
    expect(results.every((r) => r.file.bytes === first!.file.bytes)).toBe(true);
    // Fresh for a minute: no request at all, and the bytes are the file's, not memory's.
    const fresh = await cache.fetch("k", location(), {}, fetcher);
    expect(fresh.reuse).toBe("fresh");
    expect(fresh.file.bytes).toBeUndefined();
    expect(bytesOf(fresh).equals(body)).toBe(true);
    expect(requestsSince(before)).toHaveLength(1);
  });

  it("revalidates a stale copy with If-None-Match, keeps the bytes on 304, and takes new ones on 200", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    headers = { "Cache-Control": "max-age=10", ETag: '"v1"' };
    const cache = createSourceCache({ maxBytes: 1_000_000 });
    const before = origin.requests.length;
    await cache.fetch("k", location(), {}, fetcher);
    vi.setSystemTime(Date.now() + 11_000);
    const revalidated = await cache.fetch("k", location(), {}, fetcher);
    expect(revalidated.reuse).toBe("revalidated");
    expect(bytesOf(revalidated).equals(body)).toBe(true);
    expect(revalidated.file.bytes).toBeUndefined(); // a 304 brings none
    const [, conditional] = requestsSince(before);
    expect(conditional!.headers["if-none-match"]).toBe('"v1"');
    // Fresh again after the 304.
    expect((await cache.fetch("k", location(), {}, fetcher)).reuse).toBe("fresh");

    vi.setSystemTime(Date.now() + 11_000);
    body = Buffer.alloc(12_000, 2);
    headers = { "Cache-Control": "max-age=10", ETag: '"v2"' };
    const changed = await cache.fetch("k", location(), {}, fetcher);
    expect(changed.reuse).toBe("downloaded");
    expect(bytesOf(changed).equals(body)).toBe(true);
    expect(changed.file.bytes?.equals(body)).toBe(true);
  });

  it("revalidates with If-Modified-Since when the origin gives only Last-Modified", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    headers = { "Cache-Control": "max-age=0", "Last-Modified": new Date(Date.now() - 86_400_000).toUTCString() };
    const cache = createSourceCache({ maxBytes: 1_000_000 });
    const before = origin.requests.length;
    await cache.fetch("k", location(), {}, fetcher);
    vi.setSystemTime(Date.now() + 1_000);
    expect((await cache.fetch("k", location(), {}, fetcher)).reuse).toBe("revalidated");
    expect(requestsSince(before)[1]!.headers["if-modified-since"]).toBe(headers["Last-Modified"]);
  });

  it("keeps nothing the origin says not to store, nor errors, and a new key downloads again", async () => {
    headers = { "Cache-Control": "no-store" };
    const cache = createSourceCache({ maxBytes: 1_000_000 });
    const before = origin.requests.length;
    await cache.fetch("k", location(), {}, fetcher);
    await cache.fetch("k", location(), {}, fetcher);
    expect(requestsSince(before)).toHaveLength(2);

    const missing = parseSource(`http://${origin.host}/missing.jpg`);
    await expect(cache.fetch("m", missing, {}, fetcher)).rejects.toMatchObject({ code: "SOURCE_NOT_FOUND" });
    await expect(cache.fetch("m", missing, {}, fetcher)).rejects.toMatchObject({ code: "SOURCE_NOT_FOUND" });
    expect(requestsSince(before)).toHaveLength(4);

    headers = { "Cache-Control": "max-age=60" };
    await cache.fetch("gen-1", location(), {}, fetcher);
    await cache.fetch("gen-2", location(), {}, fetcher); // a purge changes the key
    expect(requestsSince(before)).toHaveLength(6);
  });

  it("stays within its byte bound, least recently used out", async () => {
    headers = { "Cache-Control": "max-age=60" };
    body = Buffer.alloc(10_000, 3);
    const cache = createSourceCache({ maxBytes: 40_000 });
    for (const key of ["a", "b", "c", "d"]) await cache.fetch(key, location(), {}, fetcher);
    await cache.fetch("a", location(), {}, fetcher); // a is now the most recently used
    await cache.fetch("e", location(), {}, fetcher); // b goes
    expect(cache.stats()).toMatchObject({ entries: 4, bytes: 40_000 });
    const before = origin.requests.length;
    expect((await cache.fetch("a", location(), {}, fetcher)).reuse).toBe("fresh");
    expect((await cache.fetch("b", location(), {}, fetcher)).reuse).toBe("downloaded");
    expect(requestsSince(before)).toHaveLength(1);
  });

  it("hands each caller its own file, readable after eviction until released; nothing stays behind", async () => {
    headers = { "Cache-Control": "max-age=60" };
    body = Buffer.alloc(10_000, 4);
    const directory = createScratchDirectory("optstuff-test-sources-");
    const cache = createSourceCache({ maxBytes: 40_000, directory });
    const [first, second] = await Promise.all([
      cache.fetch("a", location(), {}, fetcher),
      cache.fetch("a", location(), {}, fetcher),
    ]);
    expect(first!.file.path).not.toBe(second!.file.path);
    // Four newer originals push "a" out of the cache while its callers still hold it.
    for (const key of ["b", "c", "d", "e"])
      await cache.fetch(key, location(), {}, fetcher).then((s) => s.file.release());
    expect(cache.stats()).toMatchObject({ entries: 4, bytes: 40_000 });
    expect(bytesOf(first!).equals(body)).toBe(true);
    expect(first!.file.size).toBe(body.length);
    first!.file.release();
    second!.file.release();
    // Only the four kept originals remain (files are removed after the release returns: wait for that).
    await expect.poll(() => readdirSync(directory.path())).toHaveLength(4);
    cache.close();
    expect(existsSync(path.dirname(first!.file.path))).toBe(false);
  });

  it("removes an original it does not keep once every caller has its own copy", async () => {
    headers = { "Cache-Control": "no-store" };
    body = Buffer.alloc(5_000, 5);
    const directory = createScratchDirectory("optstuff-test-sources-");
    const cache = createSourceCache({ maxBytes: 1_000_000, directory });
    const handed = await Promise.all(Array.from({ length: 3 }, () => cache.fetch("n", location(), {}, fetcher)));
    await expect
      .poll(() => readdirSync(directory.path()).sort())
      .toEqual(handed.map((s) => path.basename(s.file.path)).sort());
    expect(handed.every((s) => bytesOf(s).equals(body))).toBe(true);
    for (const s of handed) s.file.release();
    await expect.poll(() => readdirSync(directory.path())).toEqual([]);
    cache.close();
  });
});

import type http from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createSourceFetcher, parseSource } from "@/server/source";
import { createSourceCache } from "@/server/source/source-cache";
import { startOrigin, type Origin } from "../../support/origin";

const fetcher = createSourceFetcher({ limits: { maxBytes: 1_000_000, timeoutMs: 5_000, maxRedirects: 3, allowLoopback: true }, localRoot: null });
let origin: Origin;
let body = Buffer.alloc(10_000, 1);
let headers: Record<string, string> = {};

/** An origin that honours If-None-Match and If-Modified-Since like a CDN would. */
function photo(request: http.IncomingMessage, response: http.ServerResponse): void {
  const etag = headers.ETag;
  const modified = headers["Last-Modified"];
  if ((etag && request.headers["if-none-match"] === etag) || (modified && request.headers["if-modified-since"] === modified)) {
    response.writeHead(304, headers).end();
    return;
  }
  response.writeHead(200, { "Content-Type": "image/jpeg", "Content-Length": body.length, ...headers }).end(body);
}

beforeAll(async () => {
  origin = await startOrigin({ "/photo.jpg": photo, "/missing.jpg": (_q, r) => void r.writeHead(404).end() });
});
afterAll(() => origin.close());
afterEach(() => vi.useRealTimers());

const location = () => parseSource(`http://${origin.host}/photo.jpg`);
const requestsSince = (before: number) => origin.requests.slice(before);

describe("source cache", () => {
  it("shares one download between concurrent fetches of one source", async () => {
    headers = { "Cache-Control": "max-age=60" };
    const cache = createSourceCache({ maxBytes: 1_000_000 });
    const before = origin.requests.length;
    const results = await Promise.all(Array.from({ length: 8 }, () => cache.fetch("k", location(), {}, fetcher)));
    expect(requestsSince(before)).toHaveLength(1);
    expect(results.every((r) => r.bytes.equals(body))).toBe(true);
    // Fresh for a minute: no request at all.
    expect((await cache.fetch("k", location(), {}, fetcher)).reuse).toBe("fresh");
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
    expect(revalidated.bytes.equals(body)).toBe(true);
    const [, conditional] = requestsSince(before);
    expect(conditional!.headers["if-none-match"]).toBe('"v1"');
    // Fresh again after the 304.
    expect((await cache.fetch("k", location(), {}, fetcher)).reuse).toBe("fresh");

    vi.setSystemTime(Date.now() + 11_000);
    body = Buffer.alloc(12_000, 2);
    headers = { "Cache-Control": "max-age=10", ETag: '"v2"' };
    const changed = await cache.fetch("k", location(), {}, fetcher);
    expect(changed.reuse).toBe("downloaded");
    expect(changed.bytes.equals(body)).toBe(true);
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
});

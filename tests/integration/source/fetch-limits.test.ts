/**
 * Limits and failure mapping of the source fetcher against real loopback origins (allowLoopback on,
 * as in development and tests). The fake network dials 127.0.0.1/::1 only and has no DNS at all.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import type http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import tls from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseSource } from "@/server/source/parse-source";
import { createSourceFetcher, type SourceFetcherOptions } from "@/server/source/safe-fetch";
import type { FetchLimits } from "@/server/source/types";
import { createTestNetwork, expectAppError, listen, startOrigin, waitFor, type Origin } from "./loopback-network";

const IMAGE = randomBytes(50_000);
const CAP = 64 * 1024;
const limits: FetchLimits = { maxBytes: CAP, timeoutMs: 2000, maxRedirects: 3, allowLoopback: true };

interface StreamState {
  sent: number;
  finished: boolean;
  closed: boolean;
}
const streamState: StreamState = { sent: 0, finished: false, closed: false };
const STREAM_TOTAL = 4 * 1024 * 1024;

// One origin, one behaviour per path.
const routes: Record<string, http.RequestListener> = {
  "/image.png": (_req, res) => {
    res.writeHead(200, { "Content-Type": "image/png", "Content-Length": IMAGE.length });
    res.end(IMAGE);
  },
  "/small.png": (_req, res) => res.end(IMAGE.subarray(0, 1000)),
  "/missing.png": (_req, res) => status(res, 404),
  "/gone.png": (_req, res) => status(res, 410),
  "/broken.png": (_req, res) => status(res, 500),
  "/forbidden.png": (_req, res) => status(res, 403),
  "/huge-declared.png": (_req, res) => {
    res.writeHead(200, { "Content-Type": "image/png", "Content-Length": 50 * 1024 * 1024 });
    res.write(Buffer.alloc(1024));
    // …and nothing more: the fetcher must refuse on the header, not wait for the body.
  },
  "/huge-chunked.png": (_req, res) => streamSlowly(res),
  "/never-answers.png": () => undefined,
  "/never-ends.png": (_req, res) => {
    res.writeHead(200, { "Content-Type": "image/png" });
    res.write(Buffer.alloc(100));
  },
  "/trickle.png": (_req, res) => {
    res.writeHead(200, { "Content-Type": "image/png" });
    const timer = setInterval(() => res.write(Buffer.alloc(1)), 20);
    res.on("close", () => clearInterval(timer));
  },
  "/reset.png": (req) => req.socket.destroy(),
  "/short-body.png": (req, res) => {
    res.writeHead(200, { "Content-Length": 1000 });
    res.write(Buffer.alloc(10), () => req.socket.destroy());
  },
  "/gzip.png": (_req, res) => {
    res.writeHead(200, { "Content-Encoding": "gzip" });
    res.end(Buffer.alloc(10));
  },
  "/hop1": (_req, res) => redirect(res, "/hop2"),
  "/hop2": (_req, res) => redirect(res, "/hop3"),
  "/hop3": (_req, res) => redirect(res, "/small.png"),
  "/hop0": (_req, res) => redirect(res, "/hop1"),
};

function status(res: http.ServerResponse, code: number): void {
  res.writeHead(code, { "Content-Type": "text/plain" });
  res.end(`status ${code}`);
}

function redirect(res: http.ServerResponse, location: string): void {
  res.writeHead(302, { Location: location });
  res.end();
}

// Writes 16 KiB every 2 ms (4 MiB would take ≥ 0.5 s), so the cap is passed long before the end.
function streamSlowly(res: http.ServerResponse): void {
  Object.assign(streamState, { sent: 0, finished: false, closed: false });
  res.writeHead(200, { "Content-Type": "image/png" });
  res.on("close", () => {
    streamState.closed = true;
  });
  const chunk = Buffer.alloc(16 * 1024, 7);
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    if (streamState.sent >= STREAM_TOTAL) {
      clearInterval(timer);
      streamState.finished = true;
      return res.end();
    }
    streamState.sent += chunk.length;
    res.write(chunk);
  }, 2);
}

let origin: Origin;
let network: ReturnType<typeof createTestNetwork>;

function fetcher(overrides: Partial<SourceFetcherOptions> = {}) {
  return createSourceFetcher({ limits, localRoot: null, net: network.net, ...overrides });
}

const at = (pathname: string) => parseSource(`${origin.base}${pathname}`);

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    const handler = routes[new URL(req.url ?? "/", "http://origin").pathname];
    if (handler) handler(req, res);
    else status(res, 404);
  });
});

beforeEach(() => {
  network = createTestNetwork();
});

afterEach(async () => {
  // No leaked sockets: whatever the test did, the origin sees every connection closed shortly after.
  await waitFor(() => origin.open.size === 0, 2000);
});

afterAll(async () => {
  await origin?.close();
});

describe("successful fetches", () => {
  it("returns the exact bytes, the content type and the final URL", async () => {
    const result = await fetcher().fetch(at("/image.png"));
    expect(result.bytes.equals(IMAGE)).toBe(true);
    expect(result.contentType).toBe("image/png");
    expect(result.finalUrl).toBe(`${origin.base}/image.png`);
    // A literal IP host needs no lookup; the only dial is to the origin itself.
    expect(network.lookups).toEqual([]);
    expect(network.dials).toEqual([{ address: "127.0.0.1", port: origin.port }]);
  });

  it("follows up to maxRedirects relative redirects and reports where the bytes came from", async () => {
    const result = await fetcher().fetch(at("/hop1"));
    expect(result.bytes.equals(IMAGE.subarray(0, 1000))).toBe(true);
    expect(result.finalUrl).toBe(`${origin.base}/small.png`);
    await expectAppError(fetcher().fetch(at("/hop0")), "SOURCE_REDIRECT_FORBIDDEN");
  });

  it("sends only its own fixed headers, never anything from the client", async () => {
    const before = origin.requests.length;
    await fetcher().fetch(at("/small.png"));
    const headers = origin.requests[before];
    expect(headers).toBeDefined();
    expect(headers?.["user-agent"]).toBe("OptStuff");
    expect(headers?.accept).toBe("image/avif,image/webp,image/*;q=0.8");
    expect(headers?.["accept-encoding"]).toBe("identity");
    expect(headers?.host).toBe(`127.0.0.1:${origin.port}`);
    for (const name of ["cookie", "authorization", "referer", "x-forwarded-for", "forwarded", "origin"]) {
      expect(headers?.[name], name).toBeUndefined();
    }
    expect(Object.keys(headers ?? {}).sort()).toEqual([
      "accept",
      "accept-encoding",
      "connection",
      "host",
      "user-agent",
    ]);
  });
});

describe("status mapping", () => {
  it.each([
    ["/missing.png", "SOURCE_NOT_FOUND"],
    ["/gone.png", "SOURCE_GONE"],
    ["/broken.png", "SOURCE_FAILED"],
    ["/forbidden.png", "SOURCE_FAILED"],
    ["/reset.png", "SOURCE_FAILED"],
    ["/short-body.png", "SOURCE_FAILED"],
    ["/gzip.png", "SOURCE_FAILED"],
  ] as const)("%s → %s", async (pathname, code) => {
    await expectAppError(fetcher().fetch(at(pathname)), code);
  });

  it("names the origin's status in the detail", async () => {
    const error = await expectAppError(fetcher().fetch(at("/broken.png")), "SOURCE_FAILED");
    expect(error.detail).toContain("500");
    expect(error.status).toBe(502);
  });

  it("maps a refused connection to SOURCE_FAILED", async () => {
    const closed = net.createServer();
    await listen(closed);
    const { port } = closed.address() as net.AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expectAppError(fetcher().fetch(parseSource(`http://127.0.0.1:${port}/x.png`)), "SOURCE_FAILED");
  });

  it("maps a failed DNS lookup to SOURCE_FAILED", async () => {
    await expectAppError(fetcher().fetch(parseSource("http://unknown.example/x.png")), "SOURCE_FAILED");
    expect(network.lookups).toEqual(["unknown.example"]);
    expect(network.dials).toEqual([]);
  });
});

describe("byte cap", () => {
  it("refuses a Content-Length over the cap without reading the body", async () => {
    await expectAppError(fetcher().fetch(at("/huge-declared.png")), "SOURCE_TOO_LARGE");
  });

  it("aborts a chunked body mid-stream the moment it passes the cap", async () => {
    await expectAppError(fetcher().fetch(at("/huge-chunked.png")), "SOURCE_TOO_LARGE");
    await waitFor(() => streamState.closed);
    expect(streamState.finished).toBe(false);
    expect(streamState.sent).toBeLessThan(STREAM_TOTAL);
  });

  it("accepts a body exactly at the cap and refuses one byte more", async () => {
    const exact = fetcher({ limits: { ...limits, maxBytes: IMAGE.length } });
    expect((await exact.fetch(at("/image.png"))).bytes.length).toBe(IMAGE.length);
    const under = fetcher({ limits: { ...limits, maxBytes: IMAGE.length - 1 } });
    await expectAppError(under.fetch(at("/image.png")), "SOURCE_TOO_LARGE");
  });
});

describe("one overall timeout", () => {
  const quick = () => fetcher({ limits: { ...limits, timeoutMs: 300 } });

  it("times out an origin that never answers", async () => {
    await expectAppError(quick().fetch(at("/never-answers.png")), "SOURCE_TIMEOUT");
  });

  it("times out an origin that sends headers and never ends the body", async () => {
    await expectAppError(quick().fetch(at("/never-ends.png")), "SOURCE_TIMEOUT");
  });

  it("times out a body that keeps trickling (the budget is not an idle timeout)", async () => {
    await expectAppError(quick().fetch(at("/trickle.png")), "SOURCE_TIMEOUT");
  });

  it("times out a lookup that never answers", async () => {
    const stuck = createSourceFetcher({
      limits: { ...limits, timeoutMs: 300 },
      localRoot: null,
      net: { lookup: () => new Promise(() => undefined), connect: network.net.connect },
    });
    await expectAppError(stuck.fetch(parseSource("http://slow-dns.example/x.png")), "SOURCE_TIMEOUT");
  });

  it("honours the caller's AbortSignal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expectAppError(fetcher().fetch(at("/never-answers.png"), { signal: controller.signal }), "SOURCE_FAILED");
    await expectAppError(
      fetcher().fetch(at("/never-ends.png"), { signal: AbortSignal.timeout(100) }),
      "SOURCE_TIMEOUT",
    );
    const aborted = AbortSignal.abort();
    await expectAppError(fetcher().fetch(at("/small.png"), { signal: aborted }), "SOURCE_FAILED");
  });
});

describe("no sockets left open", () => {
  it("closes every connection after a batch of failures", async () => {
    const quick = fetcher({ limits: { ...limits, timeoutMs: 300 } });
    const outcomes = await Promise.allSettled(
      [
        "/never-answers.png",
        "/never-ends.png",
        "/huge-declared.png",
        "/missing.png",
        "/broken.png",
        "/trickle.png",
      ].map((pathname) => quick.fetch(at(pathname))),
    );
    expect(outcomes.every((o) => o.status === "rejected")).toBe(true);
    await waitFor(() => origin.open.size === 0, 1000);
    expect(origin.open.size).toBe(0);
  });
});

// A self-signed certificate for localhost/127.0.0.1 (test fixture, valid until 2126): no trust store
// knows it, so a fetcher with verification on must refuse it.
const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgA594FJgsgk1T80Iw
NNSRdd71JU/kegSptwbOZDo0j9ahRANCAAS+DgnYzLcYwmrEDkGmByHMzC0Ugbab
TN9hHVCfFBC2lma2dOaLFwzMW8YqkWdmo5Ar5GEeE8OvubuiuwEBn2wB
-----END PRIVATE KEY-----`;
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUZ6W6XanxkYe42KnEgNNR6LMBlBMwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMTA2MTMyOVoYDzIxMjYxMDI4
MDYxMzI5WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAS+DgnYzLcYwmrEDkGmByHMzC0UgbabTN9hHVCfFBC2lma2dOaLFwzM
W8YqkWdmo5Ar5GEeE8OvubuiuwEBn2wBo28wbTAdBgNVHQ4EFgQU2JH6gj4BE752
0pN6GMXuk9R/qC0wHwYDVR0jBBgwFoAU2JH6gj4BE7520pN6GMXuk9R/qC0wDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIhAJ05oZ66DhHY+NS/x/Rzi9PixbZ7v6gSrSQTYfM2wVmoAiAZ
WwG4StTWDO9Wdn3jRFeInyhM63r7AHV3N7qv4yrB8Q==
-----END CERTIFICATE-----`;

describe("https", () => {
  it("keeps certificate verification on and sends the host name as SNI over the checked socket", async () => {
    const serverNames: string[] = [];
    const context = tls.createSecureContext({ key: TLS_KEY, cert: TLS_CERT });
    const server = tls.createServer({
      SNICallback: (servername, done) => {
        serverNames.push(servername);
        done(null, context);
      },
    });
    server.on("tlsClientError", () => undefined);
    server.on("secureConnection", (socket) => socket.end());
    await listen(server);
    const { port } = server.address() as net.AddressInfo;
    try {
      // The fake network routes the "public" 93.184.216.34 to this loopback TLS server.
      const tlsNetwork = createTestNetwork({
        dns: { "images.example": ["93.184.216.34"] },
        publicRoutes: { "93.184.216.34": port },
      });
      const secure = createSourceFetcher({
        limits: { ...limits, allowLoopback: false },
        localRoot: null,
        net: tlsNetwork.net,
      });
      const error = await expectAppError(secure.fetch(parseSource("https://images.example/a.png")), "SOURCE_FAILED");
      expect(String((error.cause as Error | undefined)?.message)).toMatch(/certificate/i);
      expect(tlsNetwork.dials).toEqual([{ address: "93.184.216.34", port: 443 }]);
      expect(serverNames).toEqual(["images.example"]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("local source root", () => {
  let base: string;
  let root: string;

  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "optstuff-local-"));
    root = path.join(base, "root");
    await mkdir(path.join(root, "nested", "dir"), { recursive: true });
    await writeFile(path.join(root, "a.png"), IMAGE.subarray(0, 500));
    await writeFile(path.join(root, "nested", "b.png"), IMAGE.subarray(0, 10));
    await writeFile(path.join(root, "big.png"), Buffer.alloc(CAP + 1));
    await writeFile(path.join(base, "outside.png"), Buffer.from("OUTSIDE"));
    await symlink(path.join(base, "outside.png"), path.join(root, "escape.png"));
    await symlink(path.join(root, "a.png"), path.join(root, "alias.png"));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const local = () => fetcher({ localRoot: root });

  it("reads a file under the root", async () => {
    const result = await local().fetch(parseSource("local/a.png"));
    expect(result.bytes.equals(IMAGE.subarray(0, 500))).toBe(true);
    expect(result.finalUrl).toBe("local/a.png");
    expect((await local().fetch(parseSource("local/nested/b.png"))).bytes.length).toBe(10);
  });

  it("follows a symlink that stays inside the root", async () => {
    const result = await local().fetch(parseSource("local/alias.png"));
    expect(result.bytes.length).toBe(500);
  });

  it("refuses a symlink pointing outside the root", async () => {
    await expectAppError(local().fetch(parseSource("local/escape.png")), "SOURCE_NOT_ALLOWED");
  });

  it("refuses .. in the URL and in a location built by other code", async () => {
    expect(() => parseSource("local/../outside.png")).toThrow();
    await expectAppError(local().fetch({ kind: "local", relativePath: "../outside.png" }), "SOURCE_NOT_ALLOWED");
    await expectAppError(
      local().fetch({ kind: "local", relativePath: "nested/../../outside.png" }),
      "SOURCE_NOT_ALLOWED",
    );
    await expectAppError(
      local().fetch({ kind: "local", relativePath: path.join(base, "outside.png") }),
      "SOURCE_NOT_ALLOWED",
    );
  });

  it("maps a missing file and a directory to SOURCE_NOT_FOUND", async () => {
    await expectAppError(local().fetch(parseSource("local/missing.png")), "SOURCE_NOT_FOUND");
    await expectAppError(local().fetch(parseSource("local/a.png/x")), "SOURCE_NOT_FOUND");
    await expectAppError(local().fetch(parseSource("local/nested/dir")), "SOURCE_NOT_FOUND");
  });

  it("refuses a file over the byte cap", async () => {
    await expectAppError(local().fetch(parseSource("local/big.png")), "SOURCE_TOO_LARGE");
  });

  it("is off when no local root is configured", async () => {
    await expectAppError(fetcher({ localRoot: null }).fetch(parseSource("local/a.png")), "SOURCE_NOT_ALLOWED");
  });
});

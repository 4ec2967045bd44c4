import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { createDownloadThread, type DownloadThread } from "@/server/source/download-thread/download-thread";
import { TEST_DOWNLOAD_THREAD } from "../../support/app";
import { startOrigin, type Origin, type OriginHandler } from "../../support/origin";

// Remote sources downloaded in a worker thread, straight into a file: the same guards as the fetcher's.
const limits = { maxBytes: 100_000, timeoutMs: 2_000, maxRedirects: 3, allowLoopback: true };
const photo = Buffer.alloc(50_000, 7);
let origin: Origin;
let other: Origin;
let thread: DownloadThread;
let dir: string;
let files = 0;
const file = () => path.join(dir, `${++files}.src`);

beforeAll(async () => {
  other = await startOrigin({
    "/elsewhere.jpg": (_q, r) => void r.writeHead(200, { "Content-Type": "image/jpeg" }).end(photo),
  });
  origin = await startOrigin({
    "/photo.jpg": (q, r) => {
      if (q.headers["if-none-match"] === '"v1"') return void r.writeHead(304, { ETag: '"v1"' }).end();
      r.writeHead(200, { "Content-Type": "image/jpeg", "Cache-Control": "max-age=60", ETag: '"v1"' }).end(photo);
    },
    "/huge.jpg": (_q, r) => void r.writeHead(200, { "Content-Type": "image/jpeg" }).end(Buffer.alloc(200_000, 1)),
    ...Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [
        `/small/${i}.png`,
        ((_q, r) => void r.writeHead(200, { "Content-Type": "image/png" }).end(`small source ${i}`)) as OriginHandler,
      ]),
    ),
    "/away": (_q, r) => void r.writeHead(302, { Location: `http://${other.host}/elsewhere.jpg` }).end(),
  });
  thread = createDownloadThread({ entry: TEST_DOWNLOAD_THREAD, limits });
  dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-download-thread-"));
});

afterAll(async () => {
  await thread.close();
  await origin.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = (pathname: string, host = origin.host) => `http://${host}${pathname}`;

describe("download thread", () => {
  it("writes the source into the file and hands back its size, final URL and response headers", async () => {
    const target = file();
    const got = await thread.download({ url: url("/photo.jpg"), sourceHosts: [origin.host] }, target);
    expect(readFileSync(target).equals(photo)).toBe(true);
    expect(got.bytes?.equals(photo)).toBe(true);
    expect(got).toMatchObject({
      size: photo.length,
      finalUrl: url("/photo.jpg"),
      response: { status: 200, headers: { etag: '"v1"', "cache-control": "max-age=60" } },
    });
  });

  it("answers a conditional request with notModified and writes nothing", async () => {
    const target = file();
    const got = await thread.download(
      { url: url("/photo.jpg"), sourceHosts: [origin.host], conditional: { ifNoneMatch: '"v1"' } },
      target,
    );
    expect(got.notModified).toBe(true);
    expect(got.bytes).toBeUndefined();
    expect(existsSync(target)).toBe(false);
  });

  it("hands over small sources too, which live in Node's shared pool there: copied, the pool left whole", async () => {
    const small = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        thread.download({ url: url(`/small/${i}.png`), sourceHosts: [origin.host] }, file()),
      ),
    );
    expect(small.map((got) => got.bytes?.toString())).toEqual(small.map((_, i) => `small source ${i}`));
    // And a large one after them: the thread's buffers still work.
    const large = await thread.download({ url: url("/photo.jpg"), sourceHosts: [origin.host] }, file());
    expect(large.bytes?.equals(photo)).toBe(true);
  });

  it("carries refusals back as the same AppError, with no file left", async () => {
    const cases: Array<[string, string[] | undefined, string]> = [
      [url("/missing.jpg"), [origin.host], "SOURCE_NOT_FOUND"],
      [url("/huge.jpg"), [origin.host], "SOURCE_TOO_LARGE"],
      // The project's policy is asked at every hop, in the thread too.
      [url("/away"), [origin.host], "SOURCE_REDIRECT_FORBIDDEN"],
    ];
    for (const [source, hosts, code] of cases) {
      const target = file();
      const error = await thread.download({ url: source, sourceHosts: hosts }, target).catch((e: unknown) => e);
      expect(error, source).toBeInstanceOf(AppError);
      expect((error as AppError).code, source).toBe(code);
      expect(existsSync(target), source).toBe(false);
    }
    // Allowed by the policy, the same redirect is followed.
    const target = file();
    await thread.download({ url: url("/away"), sourceHosts: [origin.host, other.host] }, target);
    expect(readFileSync(target).equals(photo)).toBe(true);
  });

  it("applies the address policy: loopback is refused unless the limits allow it", async () => {
    const strict = createDownloadThread({ entry: TEST_DOWNLOAD_THREAD, limits: { ...limits, allowLoopback: false } });
    try {
      const before = origin.connections();
      const error = await strict
        .download({ url: url("/photo.jpg"), sourceHosts: [origin.host] }, file())
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(403);
      expect(origin.connections()).toBe(before);
    } finally {
      await strict.close();
    }
  });

  it("settles the downloads in flight when it is closed (none hangs), and refuses new ones", async () => {
    const slow = await startOrigin({ "/slow.jpg": () => undefined });
    try {
      const pending = thread
        .download({ url: url("/slow.jpg", slow.host), sourceHosts: [slow.host] }, file())
        .catch((e: unknown) => e);
      // In flight: the origin holds the request (a delay here could end before the thread even asked).
      await expect.poll(() => slow.requests.length).toBe(1);
      await thread.close();
      const error = await pending;
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("INTERNAL");
      await expect(
        thread.download({ url: url("/photo.jpg"), sourceHosts: [origin.host] }, file()),
      ).rejects.toMatchObject({ code: "NOT_READY" });
    } finally {
      await slow.close();
    }
    thread = createDownloadThread({ entry: TEST_DOWNLOAD_THREAD, limits });
    const target = file();
    await thread.download({ url: url("/photo.jpg"), sourceHosts: [origin.host] }, target);
    expect(readFileSync(target).equals(photo)).toBe(true);
  });

  it("fails only the downloads in flight when its thread dies, and starts a new thread for the next", async () => {
    // A thread that dies on a URL naming "crash" and answers every other at once.
    const entry = path.join(dir, "dies-on-crash.mjs");
    writeFileSync(
      entry,
      `import { parentPort } from "node:worker_threads";
parentPort.on("message", (m) => {
  if (m.url.includes("crash")) process.exit(3);
  parentPort.postMessage({ id: m.id, ok: true, downloaded: { size: 1, finalUrl: m.url } });
});`,
    );
    const flaky = createDownloadThread({ entry, limits });
    try {
      const crashed = await flaky
        .download({ url: "http://example.test/crash", sourceHosts: undefined }, file())
        .catch((e: unknown) => e);
      expect(crashed).toBeInstanceOf(AppError);
      expect((crashed as AppError).code).toBe("INTERNAL");
      expect((crashed as AppError).detail).toMatch(/exited \(code 3\)/);
      await expect(
        flaky.download({ url: "http://example.test/fine", sourceHosts: undefined }, file()),
      ).resolves.toMatchObject({ finalUrl: "http://example.test/fine" });
    } finally {
      await flaky.close();
    }
  });
});

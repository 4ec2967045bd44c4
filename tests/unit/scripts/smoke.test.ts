import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * scripts/smoke.ts against a stand-in deployment that answers only what the large-output check asks:
 * a full-size PNG of the source, small for every source but `large/…`, which is a 307 to a bucket's
 * object over Vercel's 4.5 MB. The other checks fail against it; only their count is read here.
 */
let server: Server;
let baseUrl: string;
let dir: string;
let small: Buffer;
let large: Buffer;

beforeAll(async () => {
  small = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#3a6" } })
    .png()
    .toBuffer();
  // Noise does not compress: 1400 × 1200 × 3 bytes is over 4.5 MB as a PNG.
  const noise = Buffer.from(Array.from({ length: 1400 * 1200 * 3 }, () => Math.floor(Math.random() * 256)));
  large = await sharp(noise, { raw: { width: 1400, height: 1200, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  server = createServer((request, response) => {
    const url = request.url ?? "/";
    if (url === "/api/health") {
      response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok","mode":"vercel"}');
    } else if (url.startsWith("/api/v1/demo/f_png/large/")) {
      response.writeHead(307, { location: `${baseUrl}/bucket/large.png` }).end();
    } else if (url.startsWith("/api/v1/demo/f_png/")) {
      response.writeHead(200, { "content-type": "image/png" }).end(small);
    } else if (url === "/bucket/large.png") {
      response.writeHead(200, { "content-type": "image/png", "content-length": large.length }).end(large);
    } else {
      response.writeHead(404, { "content-type": "application/json" }).end('{"code":"NOT_FOUND"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(path.join(tmpdir(), "optstuff-smoke-"));
  writeFileSync(
    path.join(dir, "creds.env"),
    "OPTSTUFF_PROJECT_SLUG=demo\nOPTSTUFF_PUBLIC_KEY=pk_test\nOPTSTUFF_SECRET_KEY=sk_test\n",
  );
}, 30_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface SmokeRun {
  code: number;
  /** The large-output check's line. */
  line: string;
  failed: number;
  summary: string;
}

function smoke(...args: string[]): Promise<SmokeRun> {
  const argv = [
    "node_modules/tsx/dist/cli.mjs",
    "scripts/smoke.ts",
    baseUrl,
    "--credentials",
    path.join(dir, "creds.env"),
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, [...argv, ...args], { encoding: "utf8", timeout: 60_000 }, (error, stdout) => {
      const lines = stdout.trim().split("\n");
      resolve({
        code: error ? Number(error.code) : 0,
        line: lines.find((text) => text.includes("a large output arrives whole")) ?? "",
        failed: lines.filter((text) => text.startsWith("FAIL")).length,
        summary: lines.at(-1) ?? "",
      });
    });
  });
}

describe("the smoke script's large-output check", () => {
  it("warns, and says how to give one, when no large source is given and the output stays under the cap", async () => {
    const run = await smoke();
    expect(run.line).toMatch(/^WARN {2}a large output arrives whole: 0\.0 MB, under the 4\.5 MB cap/);
    expect(run.line).toContain("--large-source");
    expect(run.summary).toMatch(/1 warning/);
    // A warning is not a failed check: the exit code counts the failures only.
    expect(run.code).toBe(run.failed);
  }, 60_000);

  it("fails when the large source given makes an output under the cap", async () => {
    const run = await smoke("--large-source", "local/photo.jpg");
    expect(run.line).toMatch(/^FAIL {2}a large output arrives whole: 0\.0 MB, under the 4\.5 MB cap/);
    expect(run.code).toBe(run.failed);
  }, 60_000);

  it("passes when the large source's output goes past the cap, through the redirect to the bucket", async () => {
    const run = await smoke("--large-source", "large/noise.png");
    expect(run.line).toMatch(
      /^ok {4}a large output arrives whole: 4\.\d MB, through a redirect to http:\/\/127\.0\.0\.1/,
    );
    expect(run.summary).not.toMatch(/warning/);
  }, 60_000);
});

import { execFile } from "node:child_process";
import http from "node:http";
import { mkdtempSync, readdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * doctor's last check: does the server answer at the address every command prints? It said all was
 * well while the server was down. A stopped server is a warning (exit 0), a server that answers as
 * something else or says it cannot serve is a failure (exit 1). A stand-in answers /api/health here.
 */
const run = promisify(execFile);

interface Finding {
  check: string;
  status: string;
  detail: string;
}

let answer: { status: number; body: string; type: string } = { status: 200, body: "{}", type: "application/json" };
const requests: string[] = [];
const standIn = http.createServer((req, res) => {
  requests.push(`${req.method} ${req.url}`);
  res.writeHead(answer.status, { "content-type": answer.type }).end(answer.body);
});
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
  port = (standIn.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => standIn.close(() => resolve())));

const dataDir = mkdtempSync(path.join(tmpdir(), "optstuff-doctor-server-"));

async function doctor(env: Record<string, string>): Promise<{ code: number; server: Finding; stderr: string }> {
  const done = await run(process.execPath, ["scripts/optstuff.mjs", "doctor", "--json"], {
    env: { PATH: process.env.PATH ?? "", OPTSTUFF_DATA_DIR: dataDir, DATABASE_URL: "", ...env } as Record<
      string,
      string
    > as NodeJS.ProcessEnv,
    timeout: 90_000,
    encoding: "utf8",
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (failure: { code: number; stdout: string; stderr: string }) => failure,
  );
  const findings = JSON.parse(done.stdout) as Finding[];
  return { code: done.code, server: findings.find((f) => f.check === "server")!, stderr: done.stderr };
}

describe("doctor's server check", () => {
  it("finds the server answering its health report at the address commands print", async () => {
    answer = { status: 200, body: JSON.stringify({ status: "ok", mode: "embedded" }), type: "application/json" };
    const found = await doctor({ PORT: String(port) });
    expect(found.server).toEqual({
      check: "server",
      status: "ok",
      detail: `answers at http://127.0.0.1:${port}, embedded`,
    });
    expect(found.code).toBe(0);
    // One GET of the health report, nothing else.
    expect(requests).toEqual(["GET /api/health"]);
  });

  it("warns of a degraded server, and fails one that says it cannot serve (exit 1)", async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ status: "degraded", mode: "self-hosted" }),
      type: "application/json",
    };
    const degraded = await doctor({ PORT: String(port) });
    expect(degraded).toMatchObject({ code: 0, server: { status: "warn" } });
    expect(degraded.server.detail).toMatch(/degraded: its Redis does not answer/);

    answer = { status: 503, body: JSON.stringify({ status: "unavailable" }), type: "application/json" };
    const down = await doctor({ PORT: String(port) });
    expect(down).toMatchObject({
      code: 1,
      server: { status: "fail" },
      stderr: "optstuff: 1 check(s) failed: server\n",
    });
    expect(down.server.detail).toMatch(/reports itself unavailable/);
  });

  it("fails when something else answers there: the printed URLs would not reach OptStuff", async () => {
    answer = { status: 404, body: "<html>Not Found</html>", type: "text/html" };
    const other = await doctor({ OPTSTUFF_PUBLIC_BASE_URL: `http://127.0.0.1:${port}/` });
    expect(other).toMatchObject({ code: 1, server: { status: "fail" } });
    expect(other.server.detail).toBe(
      `something else answers at http://127.0.0.1:${port} (as this environment's OPTSTUFF_PUBLIC_BASE_URL, HOST and PORT give it): /api/health gave HTTP 404; check OPTSTUFF_PUBLIC_BASE_URL, or HOST and PORT`,
    );
  });

  it("says a stopped server is not running, as a warning, and changes nothing", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const stopped = await doctor({ PORT: String(free) });
    expect(stopped.code).toBe(0);
    expect(stopped.server).toMatchObject({ status: "warn" });
    expect(stopped.server.detail).toMatch(
      new RegExp(`^not running: nothing answers at http://127\\.0\\.0\\.1:${free} `),
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

/**
 * Processes the benchmarks start: a loopback origin serving generated sources, the app as `npm start`
 * runs it (scripts/server.mjs) with what `npm start` sets, and the bookkeeping to stop them all (by PID) on failure.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { signUrl } from "@optstuff/client";
import { serverEnv } from "../../scripts/server-env.mjs";
import type { Source, SourceKind } from "./sources";

export interface Origin {
  server: http.Server;
  host: string;
  counts: { GET: number; HEAD: number };
}

/** Serves every source under /src/{kind}/{anything}: any path is a new URL for the same bytes. */
export function startOrigin(sources: Source[]): Promise<Origin> {
  const byKind = new Map(sources.map((s) => [s.kind, s]));
  const counts = { GET: 0, HEAD: 0 };
  const server = http.createServer((req, res) => {
    const source = byKind.get(/^\/src\/(\w+)\//.exec(req.url ?? "")?.[1] as SourceKind);
    if (req.method === "GET" || req.method === "HEAD") counts[req.method]++;
    if (!source) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": source.contentType, "Content-Length": source.body.length });
    res.end(req.method === "HEAD" ? undefined : source.body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, host: `127.0.0.1:${(server.address() as AddressInfo).port}`, counts }),
    ),
  );
}

export function freePort(): Promise<number> {
  const server = http.createServer();
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    }),
  );
}

/** Servers started by this run: killed (by PID) if the run fails, so none outlives it. */
export const live = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of live) child.kill("SIGKILL");
}

/**
 * Starts `node args…` and waits until `readyUrl` answers. stderr lines go to `onStderrLine` (default:
 * printed); stdout is dropped unless BENCH_STDOUT is set (for --trace-gc and the like).
 */
export async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  readyUrl: string,
  onStderrLine: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env,
    stdio: ["ignore", process.env.BENCH_STDOUT ? "inherit" : "ignore", "pipe"],
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  let pending = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    lines.forEach(onStderrLine);
  });
  for (let i = 0; i < 300; i++) {
    // Any HTTP answer means the server listens (ipx answers 400 to a bare path).
    const ok = await fetch(readyUrl).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`${args.join(" ")} did not become ready`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** The /api/metrics token the benchmarks' app is started with: the endpoint is never open. */
const BENCH_METRICS_TOKEN = "bench-metrics-token";

/** The app's Prometheus text, scraped with its token. */
export async function scrapeMetrics(base: string): Promise<string> {
  const response = await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } });
  if (!response.ok) throw new Error(`/api/metrics answered ${response.status}`);
  return response.text();
}

/** Signs URLs the way integrators do, with @optstuff/client (Web Crypto, hence a promise). */
export type Signer = (operations: string, source: string) => Promise<string>;

export interface OurApp {
  env: NodeJS.ProcessEnv;
  port: number;
  base: string;
  /** A signed URL of the bootstrapped project for `operations` and `source`, made by the client kit. */
  signed: Signer;
  /** Another team and project on the same sources (the app must not be running): its URL signer. */
  addProject(team: string): Signer;
  /**
   * The built app as `npm start` runs it, with `env` plus `extraEnv` (an undefined value removes a variable);
   * Node flags from BENCH_OURS_NODE_FLAGS.
   */
  start(extraEnv?: Record<string, string | undefined>): Promise<ChildProcess>;
}

/**
 * Bootstraps an embedded database in `work` with a project whose sources are `originHost`, lifts the
 * key's rate limits (the limiter still runs, it never refuses) and says how to start the app.
 */
export async function prepareOurApp(
  work: string,
  originHost: string,
  env: Record<string, string> = {},
): Promise<OurApp> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ourEnv: NodeJS.ProcessEnv = {
    // What `npm start` sets (allocator arenas, thread pool), so the figures are what users run.
    ...serverEnv({ ...process.env, ...env }),
    NODE_ENV: "production",
    OPTSTUFF_DATA_DIR: path.join(work, "data"),
    OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "1",
    // Every request of a benchmark comes from one address: measure the work, not the per-address limits.
    OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE: "0",
    OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE: "0",
    OPTSTUFF_METRICS_TOKEN: BENCH_METRICS_TOKEN,
    PORT: String(port),
    ...env,
  };
  const tsx = (script: string, ...args: string[]) =>
    spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", script, ...args], { env: ourEnv, encoding: "utf8" });
  const project = (...args: string[]) => {
    // The command line as `npm run optstuff` runs it: the bundle `npm run build` made.
    const boot = spawnSync(process.execPath, ["scripts/optstuff.mjs", "bootstrap", "--sources", originHost, ...args], {
      env: ourEnv,
      encoding: "utf8",
    });
    const vars = Object.fromEntries(
      [...boot.stdout.matchAll(/^(OPTSTUFF_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    if (!vars.OPTSTUFF_SECRET_KEY) throw new Error(`bootstrap failed: ${boot.stderr}`);
    const raised = tsx("bench/raise-key-limits.ts", vars.OPTSTUFF_PUBLIC_KEY!);
    if (raised.status !== 0) throw new Error(`raising the key's limits failed: ${raised.stderr}`);
    return (operations: string, source: string) =>
      signUrl({
        baseUrl: base,
        projectSlug: vars.OPTSTUFF_PROJECT_SLUG!,
        publicKey: vars.OPTSTUFF_PUBLIC_KEY!,
        secretKey: vars.OPTSTUFF_SECRET_KEY!,
        operations,
        source,
      });
  };
  const signed = project("--team", "demo", "--project", "demo");
  const nodeFlags = (process.env.BENCH_OURS_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  return {
    env: ourEnv,
    port,
    base,
    signed,
    addProject: (team) => project("--team", team, "--project", team),
    start: (extraEnv = {}) => {
      const env = { ...ourEnv, ...extraEnv };
      for (const [name, value] of Object.entries(extraEnv)) if (value === undefined) delete env[name];
      // What `npm start` runs: Next's handler behind the server that stamps each socket's address.
      return startProcess(
        [...nodeFlags, "scripts/server.mjs", "--hostname", "127.0.0.1", "--port", String(port)],
        env,
        `${base}/api/health`,
      );
    },
  };
}

export const PEER_DIR = "bench/peers/next-optimizer";

/** Builds the Next.js peer app (its optimizer is the contender) unless its build is newer than its sources. */
export function buildPeerIfNeeded(): void {
  const buildId = path.join(PEER_DIR, ".next/BUILD_ID");
  const newest = Math.max(
    ...["next.config.ts", "app/layout.tsx", "app/page.tsx"].map((f) => statSync(path.join(PEER_DIR, f)).mtimeMs),
  );
  if (existsSync(buildId) && statSync(buildId).mtimeMs > newest) return;
  execFileSync(process.execPath, ["node_modules/next/dist/bin/next", "build", "--webpack", PEER_DIR], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
}

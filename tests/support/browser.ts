import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { chromiumPath } from "./services";

export const SCREENSHOT_DIR = path.resolve("artifacts/screenshots");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export interface ServedApp {
  baseUrl: string;
  /** The embedded database and generated secrets (secrets.json holds the cron secret). */
  dataDir: string;
  /** Calls a cron route with the app's generated secret. */
  cron(path: string): Promise<Response>;
  /** Scrapes /api/metrics with the app's token: the one given, or the one it generated into the data directory. */
  metrics(): Promise<Response>;
  /** SIGTERM, then waits for the exit; the data directory stays until stop(). */
  terminate(): Promise<number | null>;
  /** What the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export interface NextServer {
  /** SIGTERM, then waits for the exit; resolves to the exit code. */
  terminate(): Promise<number | null>;
  /** What the server printed so far (stdout and stderr, also passed through to the test's output). */
  output(): string;
}

/**
 * `next start` of the built app in `dir` on loopback, ready once `readyPath` answers 200. Run from
 * `dir` itself, as `npm start` there does: next resolves the config's imports from the cwd.
 */
export async function startNext(
  dir: string,
  port: number,
  env: Record<string, string>,
  readyPath: string,
): Promise<NextServer> {
  return spawnServer(
    [path.resolve("node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", String(port)],
    dir,
    port,
    env,
    readyPath,
  );
}

/**
 * Our built app as `npm start` serves it (scripts/server.mjs: Next's handler behind a server that
 * stamps each socket's address), from the repository root.
 */
export async function startAppServer(
  port: number,
  env: Record<string, string>,
  readyPath: string,
): Promise<NextServer> {
  return spawnServer(
    [path.resolve("scripts/server.mjs"), "--hostname", "127.0.0.1", "--port", String(port)],
    ".",
    port,
    env,
    readyPath,
  );
}

async function spawnServer(
  args: string[],
  dir: string,
  port: number,
  env: Record<string, string>,
  readyPath: string,
): Promise<NextServer> {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    printed += chunk.toString();
    process.stdout.write(chunk);
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    printed += chunk.toString();
    process.stderr.write(chunk);
  });
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`http://127.0.0.1:${port}${readyPath}`)
      .then((r) => r.status === 200)
      .catch(() => false))
  ) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`${path.basename(args[0]!)} in ${dir} did not become ready`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    async terminate() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      return child.exitCode;
    },
    output: () => printed,
  };
}

/**
 * The built app as `npm start` runs it, on loopback, on a fresh embedded database: what a user of the
 * quickstart gets. Stopped by the PID spawned here.
 */
export async function startServedApp(
  env: Record<string, string> = {},
  prepare?: (dataDir: string) => void,
  /** `next start` itself, to show what Next's own server sends (no peer address, no compression of ours). */
  server: "npm start" | "next start" = "npm start",
  /** The name the app is reached by: passkeys need one (a relying party cannot be an IP address). */
  host: "127.0.0.1" | "localhost" = "127.0.0.1",
): Promise<ServedApp> {
  if (!existsSync(".next/BUILD_ID")) throw new Error("Browser tests need a build: run `npm run build` first");
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "optstuff-e2e-"));
  prepare?.(dataDir); // before the server opens the embedded database (one process at a time)
  const baseUrl = `http://${host}:${port}`;
  const serverEnv = {
    NEXT_MANUAL_SIG_HANDLE: "true",
    OPTSTUFF_DATA_DIR: dataDir,
    OPTSTUFF_PUBLIC_BASE_URL: baseUrl,
    PORT: String(port),
    DATABASE_URL: "",
    UPSTASH_REDIS_REST_URL: "",
    UPSTASH_REDIS_REST_TOKEN: "",
    ...env,
  };
  const started =
    server === "npm start"
      ? await startAppServer(port, serverEnv, "/api/health")
      : await startNext(".", port, serverEnv, "/api/health");
  const terminate = () => started.terminate();
  return {
    baseUrl,
    dataDir,
    cron(cronPath) {
      const { cron } = JSON.parse(readFileSync(path.join(dataDir, "secrets.json"), "utf8")) as { cron: string };
      return fetch(`${baseUrl}${cronPath}`, { headers: { authorization: `Bearer ${cron}` } });
    },
    metrics() {
      const token = env.OPTSTUFF_METRICS_TOKEN ?? readFileSync(path.join(dataDir, "metrics-token"), "utf8");
      return fetch(`${baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${token}` } });
    },
    terminate,
    output: () => started.output(),
    async stop() {
      await terminate();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates a team, a project and an API key (demo/demo unless `args` name them) on an embedded database
 * that no server holds yet (call it from startServedApp's `prepare`), and returns the credentials file's
 * variables (OPTSTUFF_*).
 */
export function bootstrapProject(
  dataDir: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Record<string, string> {
  const file = path.join(dataDir, "credentials.env");
  const result = spawnSync(
    process.execPath,
    [
      "scripts/optstuff.mjs",
      "bootstrap",
      ...(args.includes("--team") ? [] : ["--team", "demo", "--project", "demo"]),
      "--credentials-file",
      file,
      ...args,
    ],
    {
      env: {
        ...process.env,
        OPTSTUFF_DATA_DIR: dataDir,
        DATABASE_URL: "",
        UPSTASH_REDIS_REST_URL: "",
        UPSTASH_REDIS_REST_TOKEN: "",
        ...env,
      },
      encoding: "utf8",
    },
  );
  if (result.status !== 0) throw new Error(`bootstrap failed: ${result.stderr}`);
  return Object.fromEntries(
    [...readFileSync(file, "utf8").matchAll(/^(OPTSTUFF_[A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
}

/** Debian's Chromium through playwright-core, one fresh profile per user (own cookies). */
export async function openBrowser(
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), "optstuff-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath() ?? "chromium",
    headless: true,
    viewport,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * npm run bench:cold-start — what a cold function instance pays before its first answer, per route, as
 * Vercel runs them: `next start` of the build (no scripts/server.mjs), production on a real PostgreSQL
 * (migrated beforehand, as the deploy step does), transforms in the server's process, no Redis. For
 * each route, BENCH_TRIALS (3) fresh servers: the time from spawning to accepting connections, the
 * first answer of the route (its modules load, its services start), a second answer (warm), and the
 * server's RSS after the first. A live probe (`/api/health?probe=live`) touches no dependency: its
 * first answer is the cost of loading the route's modules alone.
 * Results: a table on stdout and artifacts/bench-cold-start.json.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { signUrl } from "@optstuff/client";
import { fmt, percentile } from "./lib/load";
import { productionDatabaseEnv, startPostgres } from "./lib/postgres";
import { freePort, killAll, live, stop } from "./lib/servers";
import { rssOfTree } from "./lib/process-memory";

const TRIALS = Number(process.env.BENCH_TRIALS ?? 3);

interface Route {
  name: string;
  request(base: string): Promise<Response>;
}

async function main(): Promise<void> {
  const postgres = await startPostgres();
  const database = await productionDatabaseEnv(postgres);
  const work = mkdtempSync(path.join(os.tmpdir(), "optstuff-cold-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...database.env,
    NODE_ENV: "production",
    OPTSTUFF_TRANSFORM_ISOLATION: "none",
    OPTSTUFF_SCHEDULER: "off",
    OPTSTUFF_LOCAL_SOURCE_ROOT: path.resolve("demo"),
    OPTSTUFF_DATA_DIR: path.join(work, "data"),
    UPSTASH_REDIS_REST_URL: "",
    UPSTASH_REDIS_REST_TOKEN: "",
  };
  try {
    // The deploy step: migrate, then a project and key to sign with.
    const cli = (args: string[]) => {
      const run = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/optstuff.ts", ...args], {
        env,
        encoding: "utf8",
      });
      if (run.status !== 0) throw new Error(`optstuff ${args[0]} failed: ${run.stderr}`);
    };
    cli(["migrate"]);
    const credentials = path.join(work, "credentials.env");
    cli(["bootstrap", "--team", "cold", "--project", "cold", "--sources", "local", "--credentials-file", credentials]);
    const vars = Object.fromEntries(
      [...readFileSync(credentials, "utf8").matchAll(/^(OPTSTUFF_[A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    const routes: Route[] = [
      { name: "health, live probe", request: (base) => fetch(`${base}/api/health?probe=live`) },
      { name: "health (database)", request: (base) => fetch(`${base}/api/health`) },
      {
        name: "image (64 px WebP)",
        request: async (base) =>
          fetch(
            await signUrl({
              baseUrl: base,
              projectSlug: vars.OPTSTUFF_PROJECT_SLUG!,
              publicKey: vars.OPTSTUFF_PUBLIC_KEY!,
              secretKey: vars.OPTSTUFF_SECRET_KEY!,
              operations: "w_64,f_webp",
              source: "local/logo.png",
            }),
          ),
      },
      {
        name: "cron (flush usage)",
        request: (base) =>
          fetch(`${base}/api/cron/flush-usage-buffer`, { headers: { authorization: `Bearer ${env.CRON_SECRET}` } }),
      },
      { name: "auth (session)", request: (base) => fetch(`${base}/api/auth/get-session`) },
    ];
    const rows = [];
    for (const route of routes) {
      const listen: number[] = [];
      const first: number[] = [];
      const warm: number[] = [];
      const rss: number[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        const port = await freePort();
        const spawned = performance.now();
        const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port)], {
          env: { ...env, PORT: String(port) },
          stdio: "ignore",
        });
        live.add(server);
        try {
          await accepting(port, server);
          listen.push(performance.now() - spawned);
          const base = `http://127.0.0.1:${port}`;
          first.push(await timed(route, base));
          rss.push(rssOfTree(server.pid!) / 2 ** 20);
          warm.push(await timed(route, base));
        } finally {
          await stop(server);
          live.delete(server);
        }
      }
      rows.push({
        route: route.name,
        listenMs: percentile(listen, 50),
        firstMs: percentile(first, 50),
        warmMs: percentile(warm, 50),
        rssMb: percentile(rss, 50),
      });
      console.error(`${route.name}: done`);
    }
    console.log(`\nCold start per route (median of ${TRIALS} fresh servers; next start, PostgreSQL, no Redis)\n`);
    console.log(
      "| route | spawn → listening (ms) | first answer (ms) | second answer (ms) | RSS after the first (MB) |",
    );
    console.log("|---|---|---|---|---|");
    for (const row of rows)
      console.log(
        `| ${row.route} | ${fmt(row.listenMs)} | ${fmt(row.firstMs)} | ${fmt(row.warmMs)} | ${fmt(row.rssMb)} |`,
      );
    mkdirSync("artifacts", { recursive: true });
    writeFileSync("artifacts/bench-cold-start.json", JSON.stringify({ trials: TRIALS, rows }, null, 2));
  } finally {
    killAll();
    rmSync(work, { recursive: true, force: true });
    await database.drop();
    await postgres.stop();
  }
}

/** Waits until the port accepts a connection (Next listens before it loads any route). */
async function accepting(port: number, server: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("next start did not listen");
}

async function timed(route: Route, base: string): Promise<number> {
  const started = performance.now();
  const response = await route.request(base);
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status >= 500) throw new Error(`${route.name} answered ${response.status}`);
  return ms;
}

main().catch((error: unknown) => {
  killAll();
  console.error(error);
  process.exit(1);
});

/**
 * npm run bench:image — the signed route under `next start` against raw sharp doing the same work
 * in-process (the ceiling): a 12 MP photographic JPEG to an 800 px WebP q80, every request with a
 * distinct source URL so neither coalescing nor the result cache can help. Then the 304 path.
 * Results: a table on stdout and artifacts/bench-image.json. Needs a build (`npm run build`).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { buildSignedUrl } from "@/server/signing";
import { drive, percentile, summarise, type Summary } from "./lib/load";
import { cpuMsOfTree, peakRssOfTree } from "./lib/process-memory";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 48);
const CONCURRENCY = [2, 8];
const OPERATIONS = "w_800,q_80,f_webp";

async function makeSource(): Promise<Buffer> {
  const noise = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: "#777", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
    .blur(1.2)
    .jpeg({ quality: 88 })
    .toBuffer();
  return noise;
}

function startOrigin(body: Buffer): Promise<http.Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "image/jpeg", "Content-Length": body.length });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function freePort(): Promise<number> {
  const server = http.createServer();
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => resolve(port));
  }));
}

async function startApp(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)], { env, stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error("app did not become ready");
}

async function stop(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

async function main(): Promise<void> {
  if (!existsSync(".next/BUILD_ID")) execFileSync("npm", ["run", "-s", "build"], { stdio: "inherit" });
  const work = mkdtempSync(path.join(tmpdir(), "optstuff-bench-"));
  const source = await makeSource();
  const sourceFile = path.join(work, "source.jpg");
  writeFileSync(sourceFile, source);
  const origin = await startOrigin(source);
  const originHost = `127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: "production" as const,
    OPTSTUFF_DATA_DIR: path.join(work, "data"),
    OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "1",
    OPTSTUFF_RESULT_CACHE_BYTES: "0",
    PORT: String(port),
  };
  const boot = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/optstuff.ts", "bootstrap", "--sources", originHost], { env, encoding: "utf8" });
  const vars = Object.fromEntries([...boot.stdout.matchAll(/^(OPTSTUFF_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
  if (!vars.OPTSTUFF_SECRET_KEY) throw new Error(`bootstrap failed: ${boot.stderr}`);
  const signed = (src: string) =>
    buildSignedUrl({ baseUrl: `http://127.0.0.1:${port}`, projectSlug: vars.OPTSTUFF_PROJECT_SLUG!, publicKey: vars.OPTSTUFF_PUBLIC_KEY!, secretKey: vars.OPTSTUFF_SECRET_KEY!, operations: OPERATIONS, source: src });

  console.log(`source: 4000x3000 JPEG, ${(source.length / 1024 / 1024).toFixed(1)} MB; ${REQUESTS} requests per run; ${OPERATIONS}`);
  const results: Summary[] = [];
  const phases: Record<string, number[]> = {};
  let run = 0;
  for (const concurrency of CONCURRENCY) {
    const app = await startApp(env, port);
    const request = async (i: number) => {
      const response = await fetch(signed(`http://${originHost}/img/${run}-${i}.jpg`));
      const body = Buffer.from(await response.arrayBuffer());
      if (response.status !== 200) throw new Error(`status ${response.status}: ${body.toString().slice(0, 200)}`);
      for (const [, name, ms] of (response.headers.get("server-timing") ?? "").matchAll(/(\w+);dur=([\d.]+)/g)) {
        (phases[`c${concurrency} ${name}`] ??= []).push(Number(ms));
      }
      if (i === 0) {
        const meta = await sharp(body).metadata();
        if (meta.format !== "webp" || meta.width !== 800) throw new Error(`unexpected output ${meta.format} ${meta.width}`);
      }
    };
    run++;
    await drive(4, concurrency, request);
    run++;
    const cpuBefore = cpuMsOfTree(app.pid!);
    const measured = await drive(REQUESTS, concurrency, request);
    const cpuMs = cpuMsOfTree(app.pid!) - cpuBefore;
    results.push(summarise("signed route (next start)", concurrency, measured, peakRssOfTree(app.pid!), cpuMs));
    await stop(app);

    const worker = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "bench/raw-sharp-worker.ts", sourceFile, String(REQUESTS), String(concurrency)], { encoding: "utf8" });
    const raw = JSON.parse(worker.stdout.trim().split("\n").pop()!) as { latencies: number[]; wallMs: number; peakRss: number; cpuMs: number };
    results.push(summarise("raw sharp (in-process)", concurrency, raw, raw.peakRss, raw.cpuMs));
  }

  const app = await startApp(env, port);
  const url = signed(`http://${originHost}/img/revalidate.jpg`);
  const etag = (await fetch(url)).headers.get("etag")!;
  const serverWork: number[] = [];
  const cpuBefore = cpuMsOfTree(app.pid!);
  const revalidation = await drive(2000, 8, async () => {
    const response = await fetch(url, { headers: { "If-None-Match": etag } });
    if (response.status !== 304) throw new Error(`expected 304, got ${response.status}`);
    serverWork.push(Number(/total;dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "")?.[1]));
  });
  results.push(summarise("304 revalidation", 8, revalidation, peakRssOfTree(app.pid!), cpuMsOfTree(app.pid!) - cpuBefore));
  await stop(app);
  origin.close();
  rmSync(work, { recursive: true, force: true });

  console.log("\n| path | concurrency | req/s | p50 ms | p95 ms | CPU ms/req | peak RSS MB |\n|---|---|---|---|---|---|---|");
  for (const r of results) {
    const cells = [r.rps.toFixed(1), r.p50.toFixed(1), r.p95.toFixed(1), r.cpuMsPerRequest.toFixed(1), r.peakRssMb.toFixed(0)];
    console.log(`| ${r.label} | ${r.concurrency} | ${cells.join(" | ")} |`);
  }
  for (const concurrency of CONCURRENCY) {
    const ours = results.find((r) => r.concurrency === concurrency && r.label.startsWith("signed"))!;
    const ceiling = results.find((r) => r.concurrency === concurrency && r.label.startsWith("raw"))!;
    console.log(`route / raw sharp at concurrency ${concurrency}: ${(ours.rps / ceiling.rps).toFixed(2)}x`);
  }
  for (const [name, values] of Object.entries(phases)) console.log(`server-timing ${name}: p50 ${percentile(values, 50).toFixed(1)} ms`);
  console.log(`304 server-side work (Server-Timing total): p50 ${percentile(serverWork, 50).toFixed(3)} ms, p95 ${percentile(serverWork, 95).toFixed(3)} ms`);
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-image.json", JSON.stringify({ results, revalidationServerMs: { p50: percentile(serverWork, 50), p95: percentile(serverWork, 95) } }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

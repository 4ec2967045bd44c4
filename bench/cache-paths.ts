/**
 * npm run bench:cache — the signed route's cache paths next to its transform path, in one run:
 *   - transform: a distinct source URL per request (12 MP JPEG → 800 px WebP q80), as bench:image;
 *   - result-cache hit: one signed URL over and over, served from the in-process result cache;
 *   - 304: the same URL with its ETag in If-None-Match;
 *   - result-store hit: the transform path's URLs again after a restart with the in-process cache off,
 *     from the files under the data directory, then from an S3-compatible bucket (s3rver on loopback:
 *     a JavaScript server on the same disk, so the figure is a floor for the store tier's overhead,
 *     not a measure of AWS S3 or R2 latency);
 *   - info (JSON facts and placeholders' hashes) and a placeholder image, cold and cached;
 *   - result-cache hits while four transforms keep both cores busy (target: p99 ≤ 20 ms), from clients
 *     in a thread of their own (the origin streams sources from the main one), beside the same clients
 *     with no transform at all (the floor on these two cores), with the
 *     transforms placed by input (the default: these JPEGs run in the server's process), and all in
 *     transform processes at the server's CPU priority and at nice 10 (OPTSTUFF_TRANSFORM_NICE).
 * Concurrency 8, `next start` with what `npm start` sets. Hits are checked on the app's own metrics
 * (every measured request must be counted as cache="hit"), 304s by status. Target: each cache path ≥ 5×
 * the transform path's requests/s. Results: a table on stdout and artifacts/bench-cache.json.
 * BENCH_SCALE multiplies the request counts (default 40 transforms, 2,000 per cache path).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drive, fmt, percentile, summarise, type Summary } from "./lib/load";
import { cpuMsOfTree, peakRssOfTree } from "./lib/process-memory";
import { killAll, prepareOurApp, scrapeMetrics, startOrigin, stop } from "./lib/servers";
import { makeSources } from "./lib/sources";
import { getFromThread, runQueueClock } from "./lib/thread-clients";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { S3RVER_CREDENTIALS, startS3rver, type S3rverProcess } from "../tools/s3-local/s3rver-process";

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const TRANSFORMS = Math.max(8, Math.round(40 * SCALE));
const CACHED = Math.max(100, Math.round(2000 * SCALE));
const CONCURRENCY = 8;
const OPERATIONS = "w_800,q_80,f_webp";
const ACCEPT = "image/avif,image/webp,image/*,*/*;q=0.8";
/** Where the transforms run while hits are measured, and how the server is started for it. */
const UNDER_LOAD: ReadonlyArray<[string, Record<string, string>, number]> = [
  // The floor: the same clients with nothing else to do, on the same two cores as the server.
  ["none (the floor)", {}, 0],
  ["placed by input (default): in the server's process", {}, 4],
  ["transform processes at nice 0", { OPTSTUFF_TRANSFORM_ISOLATION: "process", OPTSTUFF_TRANSFORM_NICE: "0" }, 4],
  ["transform processes at nice 10", { OPTSTUFF_TRANSFORM_ISOLATION: "process", OPTSTUFF_TRANSFORM_NICE: "10" }, 4],
];

interface UnderLoad {
  p50: number;
  p99: number;
  requests: number;
  transforms: number;
  /** The server's main thread meanwhile: ms it ran, and ms it waited for a core while it could run, a second. */
  mainThread: { ranMsPerS: number; waitedMsPerS: number } | null;
}

interface PathResult extends Summary {
  /** Server work per request from Server-Timing `total`, p50 and p95. */
  serverMs: { p50: number; p95: number };
  /** Requests/s as a multiple of the transform path's. */
  vsTransform?: number;
}

/** Requests counted under cache="hit" by the app's metrics (`optstuff_image_request_duration_seconds`). */
async function hitsCounted(base: string): Promise<number> {
  const text = await scrapeMetrics(base);
  return Number(/^optstuff_image_request_duration_seconds_count\{[^}]*cache="hit"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/**
 * Insists that `count` requests were answered from the result store (optstuff_results_total), so a
 * figure is the tier it names: read from the store, or waiting on a concurrent read of the same result
 * ("shared": with few distinct URLs, as at a small BENCH_SCALE, requests for one URL meet). A store miss
 * makes the two fall short.
 */
async function expectStoreAnswers(base: string, count: number): Promise<void> {
  const text = await scrapeMetrics(base);
  const tier = (name: string) =>
    Number(new RegExp(`optstuff_results_total\\{tier="${name}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  const counted = tier("store") + tier("shared");
  if (counted !== count) throw new Error(`${counted} of ${count} requests were answered from the result store`);
}

async function main(): Promise<void> {
  let s3: S3rverProcess | undefined;
  const work = mkdtempSync(path.join(tmpdir(), "optstuff-bench-cache-"));
  const jpeg = (await makeSources()).find((s) => s.kind === "jpeg")!;
  const origin = await startOrigin([jpeg]);
  const app = await prepareOurApp(work, origin.host);
  let child = await app.start();
  const results: Record<string, PathResult> = {};
  const underLoad: Record<string, UnderLoad> = {};

  async function measure(name: string, total: number, request: (i: number) => Promise<number>): Promise<void> {
    const serverMs: number[] = [];
    const cpuBefore = cpuMsOfTree(child.pid!);
    const run = await drive(total, CONCURRENCY, async (i) => {
      serverMs.push(await request(i));
    });
    results[name] = {
      ...summarise(name, CONCURRENCY, run, peakRssOfTree(child.pid!), cpuMsOfTree(child.pid!) - cpuBefore),
      serverMs: { p50: percentile(serverMs, 50), p95: percentile(serverMs, 95) },
    };
  }
  /** Fetches `url`, insists on `status`, returns Server-Timing's total. */
  async function get(url: string, status: number, headers: Record<string, string> = {}): Promise<number> {
    const response = await fetch(url, { headers: { Accept: ACCEPT, ...headers } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== status)
      throw new Error(`expected ${status}, got ${response.status}: ${body.toString().slice(0, 200)}`);
    if (status === 200 && body.length === 0) throw new Error("empty body");
    return Number(/total;dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "")?.[1]);
  }

  /**
   * Hits while transforms keep both cores busy: `transforms` of new URLs in flight the whole time (4: the
   * route's 4 slots), 4 clients asking for one cached URL from a thread of their own. Target: hits' p99
   * ≤ 20 ms.
   */
  async function hitsDuringTransforms(
    label: string,
    url: string,
    source: (name: string) => string,
    transforms: number,
  ): Promise<void> {
    // A server warmed as one in service is: its hit path compiled by the JIT, the clients' connections open.
    await getFromThread(url, CACHED / 4, 4, ACCEPT);
    let loading = true;
    let made = 0;
    const load = drive(transforms, transforms, async () => {
      while (loading) await get(await app.signed(OPERATIONS, source(`busy-${label}-${made++}`)), 200);
    });
    if (transforms > 0) await new Promise((resolve) => setTimeout(resolve, 1_000)); // the slots are full
    const mainThread = runQueueClock(child.pid!);
    const latencies = await getFromThread(url, CACHED / 2, 4, ACCEPT);
    underLoad[label] = {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      requests: latencies.length,
      transforms: made,
      mainThread: mainThread(),
    };
    loading = false;
    await load;
  }

  try {
    const source = (name: string) => `http://${origin.host}/src/jpeg/${name}.jpg`;
    // Warm-up: sharp loaded, key cache warm, connections open.
    await drive(
      CONCURRENCY,
      CONCURRENCY,
      async (i) => void (await get(await app.signed(OPERATIONS, source(`warm-${i}`)), 200)),
    );
    // Distinct URLs are signed before each clock starts: the client's part is the HTTP.
    const signAll = (operations: string, name: (i: number) => string) =>
      Promise.all(Array.from({ length: TRANSFORMS }, (_, i) => app.signed(operations, source(name(i)))));
    const transformUrls = await signAll(OPERATIONS, (i) => `t-${i}`);
    await measure("transform (distinct URLs)", TRANSFORMS, (i) => get(transformUrls[i]!, 200));

    const url = await app.signed(OPERATIONS, source("cached"));
    const first = await fetch(url, { headers: { Accept: ACCEPT } });
    const etag = first.headers.get("etag");
    if (first.status !== 200 || !etag) throw new Error(`cached URL: ${first.status}, ETag ${etag}`);
    const hitsBefore = await hitsCounted(app.base);
    await measure("result-cache hit", CACHED, () => get(url, 200));
    const hits = (await hitsCounted(app.base)) - hitsBefore;
    if (hits !== CACHED) throw new Error(`${hits} of ${CACHED} requests were result-cache hits`);
    await measure("304 revalidation", CACHED, () => get(url, 304, { "If-None-Match": etag }));

    // Info and placeholders: made from the same 12 MP source (cold: a distinct source each), then cached.
    for (const [name, operations] of [
      ["info", "info"],
      ["placeholder", "placeholder,f_webp"],
    ] as const) {
      const cold = await signAll(operations, (i) => `${name}-${i}`);
      await measure(`${name} (cold, distinct URLs)`, TRANSFORMS, (i) => get(cold[i]!, 200));
      const again = cold[0]!;
      await measure(`${name} (cached)`, CACHED, () => get(again, 200));
    }

    // The result store: the transform path's results, with L1 off so every request reads the store.
    const stored = (i: number) => transformUrls[i % TRANSFORMS]!;
    await stop(child);
    child = await app.start({ OPTSTUFF_RESULT_CACHE_BYTES: "0" });
    await measure("result-store hit (files)", CACHED, (i) => get(stored(i), 200));
    await expectStoreAnswers(app.base, CACHED);

    await stop(child);
    s3 = await startS3rver();
    const bucket = "bench-results";
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
    child = await app.start({
      OPTSTUFF_RESULT_CACHE_BYTES: "0",
      OPTSTUFF_RESULT_STORE_S3_BUCKET: bucket,
      OPTSTUFF_RESULT_STORE_S3_ENDPOINT: s3.endpoint,
      OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    });
    await drive(TRANSFORMS, CONCURRENCY, async (i) => void (await get(stored(i), 200))); // made once, written back
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await measure("result-store hit (S3: s3rver)", CACHED, (i) => get(stored(i), 200));
    await expectStoreAnswers(app.base, CACHED);

    // Cache hits under a transform load: transforms placed by input (the default: these JPEGs run in the
    // server's process), and all of them in transform processes at the server's priority and niced.
    for (const [label, env, transforms] of UNDER_LOAD) {
      await stop(child);
      child = await app.start(env);
      await hitsDuringTransforms(label, await app.signed(OPERATIONS, source("cached")), source, transforms);
    }
  } finally {
    await stop(child);
    await s3?.stop();
    origin.server.close();
    rmSync(work, { recursive: true, force: true });
  }

  const transformRps = results["transform (distinct URLs)"]!.rps;
  console.log(`\nSigned route, concurrency ${CONCURRENCY}, ${OPERATIONS} of a 12 MP JPEG:\n`);
  console.log(
    "| path | requests | req/s | p50 ms | p95 ms | server work p50 / p95 ms | CPU ms/req | × transform (target ≥ 5) |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const [name, r] of Object.entries(results)) {
    r.vsTransform = r.rps / transformRps;
    const cold = name.includes("cold");
    const ratio = name.startsWith("transform")
      ? "1"
      : cold
        ? `${fmt(r.vsTransform, 1)}×`
        : `${fmt(r.vsTransform, 0)}× ${r.vsTransform >= 5 ? "✓" : "✗"}`;
    console.log(
      `| ${name} | ${r.requests} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.serverMs.p50, 2)} / ${fmt(r.serverMs.p95, 2)} | ${fmt(r.cpuMsPerRequest)} | ${ratio} |`,
    );
  }
  console.log("\nResult-cache hits while 4 transforms are in flight (4 clients in a thread of their own):\n");
  console.log(
    "| transforms run | hits | transforms meanwhile | p50 ms | p99 ms (target ≤ 20) | server's main thread ran / waited for a core, ms a second |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const [label, r] of Object.entries(underLoad)) {
    const thread = r.mainThread ? `${fmt(r.mainThread.ranMsPerS, 0)} / ${fmt(r.mainThread.waitedMsPerS, 0)}` : "–";
    console.log(
      `| ${label} | ${r.requests} | ${r.transforms} | ${fmt(r.p50)} | ${fmt(r.p99)} ${r.p99 <= 20 ? "✓" : "✗"} | ${thread} |`,
    );
  }
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-cache.json",
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        operations: OPERATIONS,
        concurrency: CONCURRENCY,
        results,
        hitsDuringTransforms: underLoad,
      },
      null,
      2,
    ),
  );
  console.log("\nartifacts/bench-cache.json");
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});

/**
 * npm run bench:hostile — hostile images against the built app under `next start` (embedded default,
 * what `npm start` sets), one case at a time: status, seconds, peak RSS of the server's process tree
 * (transform processes included, sampled every 20 ms) and RSS 3 s after the answer. Targets (issue 13):
 * every case answered within the transform budget + 5 s, peak growth ≤ 512 MB per case, back within
 * 100 MB of the start afterwards.
 *
 * Then the cross-tenant cases: account A asks for small new transforms one after another (p50/p95),
 * alone, then while account B keeps four in flight: heavy AVIFs from one team, f_avif,q_auto quality
 * searches from one team, and the same searches from four teams of its own (teams cost nothing: one
 * account, one share). With the fair share on (default) and off (OPTSTUFF_TRANSFORM_FAIR_SHARE=off, one
 * first-come queue). Targets: A's loaded p50 within 2× its p50 alone (issue 47), p95 within 2× its p95.
 *
 * Results: tables on stdout and artifacts/bench-hostile.json. BENCH_TENANT_REQUESTS changes A's 60.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { filterBombSvg, pixelBombPng, scriptedSvg, svgEmbedding } from "../tests/support/hostile";
import { fmt, percentile } from "./lib/load";
import { rssOfTree } from "./lib/process-memory";
import { accountWithTeams } from "./lib/accounts";
import { killAll, prepareOurApp, stop, type Signer } from "./lib/servers";

const BUDGET_MS = 20_000;
const MB = 2 ** 20;
const TENANT_REQUESTS = Number(process.env.BENCH_TENANT_REQUESTS ?? 60);

interface Case {
  name: string;
  file: string;
  operations: string;
  accept?: string;
}

async function hostileFiles(): Promise<Record<string, { body: Buffer; type: string }>> {
  const png = (body: Buffer) => ({ body, type: "image/png" });
  const svg = (body: Buffer) => ({ body, type: "image/svg+xml" });
  // A real 10000×10000 PNG (one colour, so it compresses to a small file), as in the report.
  const bigPng = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: "#2a6" } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  const photo = await sharp({
    create: {
      width: 640,
      height: 480,
      channels: 3,
      background: "#000",
      noise: { type: "gaussian", mean: 128, sigma: 40 },
    },
  })
    .jpeg()
    .toBuffer();
  // Photographic weight, not noise: a blurred noise field compresses like a photo (≈ 1.5 MB).
  const twelveMp = await sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: "#000",
      noise: { type: "gaussian", mean: 120, sigma: 60 },
    },
  })
    .blur(3)
    .jpeg({ quality: 85 })
    .toBuffer();
  return {
    "svg-data-png": svg(svgEmbedding(bigPng)),
    "svg-filter": svg(filterBombSvg(7000, 4)),
    "svg-filter-octaves": svg(filterBombSvg(7000, 10)),
    "pixel-bomb": png(pixelBombPng()),
    "script-svg": svg(scriptedSvg),
    "small-jpeg": { body: photo, type: "image/jpeg" },
    "photo-12mp": { body: twelveMp, type: "image/jpeg" },
    truncated: { body: twelveMp.subarray(0, twelveMp.length >> 1), type: "image/jpeg" },
  };
}

const CASES: Case[] = [
  { name: "SVG 100 px embedding a 10000² data: PNG, f_png", file: "svg-data-png", operations: "f_png" },
  { name: "SVG feTurbulence + feGaussianBlur(500) 7000², f_png", file: "svg-filter", operations: "f_png" },
  { name: "the same, 10 octaves, f_png", file: "svg-filter-octaves", operations: "f_png" },
  {
    name: "small JPEG → 8192² fill enlarge AVIF q99",
    file: "small-jpeg",
    operations: "w_8192,h_8192,fit_fill,enlarge,f_avif,q_99",
  },
  {
    name: "small JPEG → 8192² fill enlarge WebP q99",
    file: "small-jpeg",
    operations: "w_8192,h_8192,fit_fill,enlarge,f_webp,q_99",
  },
  {
    name: "small JPEG → 8192² f_auto (AVIF accepted)",
    file: "small-jpeg",
    operations: "w_8192,h_8192,fit_fill,enlarge,f_auto",
    accept: "image/avif,image/webp",
  },
  { name: "PNG declaring 100000² (pixel bomb)", file: "pixel-bomb", operations: "w_100" },
  { name: "SVG with script, no f_", file: "script-svg", operations: "_" },
  { name: "12 MP JPEG cut in half", file: "truncated", operations: "w_800,f_webp" },
  { name: "12 MP JPEG, blur 100 to PNG at full size", file: "photo-12mp", operations: "blur_100,f_png" },
];

function startHostileOrigin(
  files: Record<string, { body: Buffer; type: string }>,
): Promise<{ server: http.Server; host: string }> {
  const server = http.createServer((req, res) => {
    const file = files[/^\/h\/([\w-]+)\//.exec(req.url ?? "")?.[1] ?? ""];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": file.type, "Content-Length": file.body.length }).end(file.body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** Calls `work` while sampling the tree's RSS; returns its peak. */
async function withPeak<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = rssOfTree(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOfTree(pid))), 20);
  try {
    const value = await work();
    return { value, peak: Math.max(peak, rssOfTree(pid)) };
  } finally {
    clearInterval(timer);
  }
}

let unique = 0;
const fresh = (file: string) => `http://${HOST}/h/${file}/${Date.now()}-${unique++}`;
let HOST = "";

async function request(url: string, accept = "image/png"): Promise<{ status: number; code?: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { Accept: accept } });
  const body = Buffer.from(await response.arrayBuffer());
  const code = response.status === 200 ? undefined : (JSON.parse(body.toString("utf8")) as { code: string }).code;
  return { status: response.status, code, ms: performance.now() - started };
}

/** What account B keeps in flight, four at a time: which team's signer and what each asks. */
interface Load {
  name: string;
  /** The four requests' signers (the same team's four times, or four teams'). */
  signers: Signer[];
  operations: (n: number) => string;
  file: string;
}

async function tenantLatencies(signA: Signer, load: Load | null): Promise<number[]> {
  let heavyRunning = load !== null;
  let n = 0;
  const heavy = async (sign: Signer) => {
    while (heavyRunning) await request(await sign(load!.operations(n++), fresh(load!.file)), "image/avif,image/webp");
  };
  const running = load ? load.signers.map(heavy) : [];
  if (load) await new Promise((r) => setTimeout(r, 1500));
  const latencies: number[] = [];
  for (let i = 0; i < TENANT_REQUESTS; i++) {
    const { status, ms } = await request(await signA("w_200,f_webp", fresh("small-jpeg")), "image/webp");
    if (status !== 200) throw new Error(`tenant A answered ${status}`);
    latencies.push(ms);
  }
  heavyRunning = false;
  await Promise.all(running);
  return latencies;
}

async function main(): Promise<void> {
  const files = await hostileFiles();
  const origin = await startHostileOrigin(files);
  HOST = origin.host;
  const work = mkdtempSync(path.join(tmpdir(), "optstuff-bench-hostile-"));
  const results: Record<string, unknown> = {};
  try {
    const app = await prepareOurApp(work, origin.host, { OPTSTUFF_REGISTRATION: "open" });

    console.log(
      `\nHostile cases (budget ${BUDGET_MS / 1000} s; targets: ≤ budget + 5 s, peak growth ≤ 512 MB, after ≤ start + 100 MB)\n`,
    );
    console.log("| case | status | seconds | start MB | peak MB | after MB | within targets |");
    console.log("|---|---|---|---|---|---|---|");
    const server = await app.start();
    const rows = [];
    for (const c of CASES) {
      const start = rssOfTree(server.pid!);
      const url = await app.signed(c.operations, fresh(c.file));
      const { value, peak } = await withPeak(server.pid!, () => request(url, c.accept));
      await new Promise((r) => setTimeout(r, 3000));
      const after = rssOfTree(server.pid!);
      const ok = value.ms <= BUDGET_MS + 5000 && peak - start <= 512 * MB && after - start <= 100 * MB;
      const row = {
        case: c.name,
        status: `${value.status}${value.code ? ` ${value.code}` : ""}`,
        seconds: value.ms / 1000,
        startMb: start / MB,
        peakMb: peak / MB,
        afterMb: after / MB,
        ok,
      };
      rows.push(row);
      console.log(
        `| ${row.case} | ${row.status} | ${fmt(row.seconds, 2)} | ${fmt(row.startMb, 0)} | ${fmt(row.peakMb, 0)} | ${fmt(row.afterMb, 0)} | ${ok ? "yes" : "NO"} |`,
      );
    }
    results.cases = rows;
    await stop(server);

    console.log(
      `\nCross-tenant: account A's small new transforms (${TENANT_REQUESTS}, one at a time) while account B keeps 4 in flight\n`,
    );
    console.log(
      "| B keeps in flight | fair share | A alone p50 / p95 ms | A with B p50 / p95 ms | p50 ÷ alone | p95 ÷ alone |",
    );
    console.log("|---|---|---|---|---|---|");
    const tenants = [];
    let loads: Load[] = [];
    for (const fairShare of ["on", "off"] as const) {
      const running = await app.start({ OPTSTUFF_TRANSFORM_FAIR_SHARE: fairShare });
      if (loads.length === 0) {
        // A signs up first and adopts the demo team the command line made; B is another account.
        await accountWithTeams(app.base, "bench-a", 1, origin.host);
        const one = await accountWithTeams(app.base, "bench-b", 1, origin.host);
        const four = await accountWithTeams(app.base, "bench-c", 4, origin.host);
        loads = [
          {
            name: "12 MP → 2400 px AVIF q70, one team",
            signers: Array(4).fill(one[0]),
            operations: () => "w_2400,f_avif,q_70",
            file: "photo-12mp",
          },
          {
            name: "12 MP → w_1200 f_avif,q_auto, one team",
            signers: Array(4).fill(one[0]),
            operations: (n) => `w_${1200 + (n % 400)},f_avif,q_auto`,
            file: "photo-12mp",
          },
          {
            name: "the same searches from four teams of one account",
            signers: four,
            operations: (n) => `w_${1200 + (n % 400)},f_avif,q_auto`,
            file: "photo-12mp",
          },
        ];
      }
      await tenantLatencies(app.signed, null); // warm: transform processes, caches, JIT
      const alone = await tenantLatencies(app.signed, null);
      for (const load of loads) {
        const loaded = await tenantLatencies(app.signed, load);
        const row = {
          load: load.name,
          fairShare,
          aloneP50: percentile(alone, 50),
          aloneP95: percentile(alone, 95),
          loadedP50: percentile(loaded, 50),
          loadedP95: percentile(loaded, 95),
        };
        tenants.push(row);
        console.log(
          `| ${row.load} | ${fairShare} | ${fmt(row.aloneP50, 0)} / ${fmt(row.aloneP95, 0)} | ${fmt(row.loadedP50, 0)} / ${fmt(row.loadedP95, 0)} | ${fmt(row.loadedP50 / row.aloneP50, 2)}× | ${fmt(row.loadedP95 / row.aloneP95, 2)}× |`,
        );
      }
      await stop(running);
    }
    results.tenants = tenants;
    mkdirSync("artifacts", { recursive: true });
    writeFileSync("artifacts/bench-hostile.json", JSON.stringify(results, null, 2));
  } finally {
    killAll();
    origin.server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  killAll();
  console.error(error);
  process.exit(1);
});

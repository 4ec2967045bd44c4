/**
 * npm run bench:image — transform throughput of the signed route next to what users would run instead,
 * all on the same sharp/libvips (checked in each process's memory map):
 *   - the signed route under `next start` (warm key cache, result cache off),
 *   - the Next.js built-in optimizer, `/_next/image` of a throwaway app (bench/peers/next-optimizer),
 *   - ipx with its own Node server (bench/peers/ipx-server.mjs),
 *   - raw sharp doing the route's transform in-process, no HTTP (the ceiling; bench/raw-sharp-worker.ts).
 * Sources are generated here (a 12 MP photographic JPEG, a 2 MP PNG with alpha, a 20-frame animated
 * GIF) and served from a loopback origin; every request names a distinct source URL, so no result cache,
 * disk cache or request coalescing can help. Output: 800 px WebP q80, at concurrency 2 and 8. Each
 * contender's first output per source is decoded and checked (WebP, width, frames); output sizes are
 * compared with raw sharp's. The cache paths (304, result cache) are bench/cache-paths.ts.
 *
 * Results: tables on stdout, artifacts/bench-image.json, docs/bench-throughput.png (chart) and
 * artifacts/bench-throughput.svg. Builds the app and the peer app if they have no build.
 * BENCH_SCALE multiplies the request counts (default 1: 120 JPEG, 60 PNG, 20 GIF per run);
 * BENCH_CONTENDERS=ours,next,ipx,raw and BENCH_SOURCES=jpeg,png,gif run a subset (no chart then);
 * BENCH_OURS_NODE_FLAGS passes Node flags to the signed route's server (e.g. --cpu-prof).
 * BENCH_DATABASE=postgres runs the signed route on PostgreSQL (DATABASE_URL: TEST_DATABASE_URL's server,
 * or a throwaway PostgreSQL 15 cluster) instead of the embedded default; results go to
 * artifacts/bench-image-postgres.json and the chart is left alone.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { drive, fmt, percentile, summarise, type Summary } from "./lib/load";
import {
  cpuMsOfProcess,
  cpuMsOfTree,
  machineBusyMs,
  mappedFilesOfTree,
  peakRssOf,
  peakRssOfTree,
  processesOfTree,
} from "./lib/process-memory";
import {
  buildPeerIfNeeded,
  freePort,
  killAll,
  PEER_DIR,
  prepareOurApp,
  scrapeMetrics,
  startOrigin,
  startProcess,
  stop,
  type Origin,
  type OurApp,
} from "./lib/servers";
import { productionDatabaseEnv, startPostgres } from "./lib/postgres";
import { makeSources, type Source, type SourceKind } from "./lib/sources";

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const REQUESTS: Record<SourceKind, number> = {
  jpeg: Math.max(8, Math.round(120 * SCALE)),
  png: Math.max(8, Math.round(60 * SCALE)),
  gif: Math.max(8, Math.round(20 * SCALE)),
};
const CONCURRENCY = [2, 8];
const WIDTH = 800;
const OPERATIONS = `w_${WIDTH},q_80,f_webp`;
const ACCEPT = "image/avif,image/webp,image/*,*/*;q=0.8";
/** An output size this far from raw sharp's means the contender did different work. */
const SIZE_TOLERANCE = 0.25;

const SHARP_FILES = /sharp-[\w.-]+\.node$|libvips-cpp/;

type ContenderId = "ours" | "next" | "ipx" | "raw";
const CONTENDERS: ContenderId[] = (["ours", "next", "ipx", "raw"] as const).filter((id) =>
  (process.env.BENCH_CONTENDERS ?? "ours,next,ipx,raw").split(",").includes(id),
);
const versionOf = (pkg: string) =>
  (JSON.parse(readFileSync(`node_modules/${pkg}/package.json`, "utf8")) as { version: string }).version;
const DATABASE = process.env.BENCH_DATABASE === "postgres" ? "postgres" : "embedded";
const LABELS: Record<ContenderId, string> = {
  ours: DATABASE === "postgres" ? "OptStuff signed route (PostgreSQL)" : "OptStuff signed route",
  next: `Next.js ${versionOf("next")} /_next/image`,
  ipx: `ipx ${versionOf("ipx")}`,
  raw: "raw sharp (in-process)",
};

interface OutputCheck {
  format: string;
  width: number;
  height: number;
  frames: number;
  hasAlpha: boolean;
  bytes: number;
  /** Same work as asked: WebP, 800 px (or the source's width if smaller), every frame kept. */
  comparable: boolean;
  note: string;
}

interface RunResult extends Summary {
  contender: ContenderId;
  source: SourceKind;
  /** Mean body size of the measured responses. */
  outputBytes: number;
  first: OutputCheck;
  /** outputBytes / raw sharp's output bytes for the same source. */
  sizeVsRaw?: number;
  warnings: string[];
  /** Origin requests per image (ipx sends a HEAD before each GET). */
  originRequestsPerImage?: number;
  /** CPU of the server's own process (its threads, not its transform processes) per request: the signed route only. */
  serverCpuMsPerRequest?: number;
  /** The embedded database's process, per request (0 on PostgreSQL). */
  databaseCpuMsPerRequest?: number;
  /** Peak RSS in bytes of the server's own process, the embedded database's and the live transform processes. */
  peakRssParts?: { server: number; database: number; transforms: number };
  /** Where the signed route ran its transforms (warm-up included): `in-process`, or the reason it sent one away. */
  placements?: Record<string, number>;
  /** CPU of the benchmark process itself (load generator + origin) per request. */
  clientCpuMsPerRequest?: number;
  /**
   * Share of the machine's 2 cores busy with processes outside this run during it (other sessions on
   * this shared machine): machine busy time minus the contender's and the benchmark's own CPU.
   */
  otherLoad: number;
  /** X-Nextjs-Cache values seen on the measured responses (Next only). */
  cacheHeaders?: Record<string, number>;
  /** Entries in Next's image disk cache after the run: it writes every result, none is read back. */
  cacheEntries?: number;
  /** Next's "is an animated image so it will not be optimized" warnings during the run. */
  passThroughWarnings?: number;
  sharpFiles: string[];
}

// ---------------------------------------------------------------------------------------------------
// Processes

/** Next logs one warning per animated source it passes through untouched: counted, not printed. */
const PASS_THROUGH_WARNING = /is an animated image so it will not be optimized/;
let passThroughWarnings = 0;
const countPassThrough = (line: string) => {
  if (PASS_THROUGH_WARNING.test(line)) passThroughWarnings++;
  else process.stderr.write(`${line}\n`);
};

/** The peer app is built once (webpack: Turbopack roots at the repository's lockfile and picks up src/instrumentation.ts). */
// ---------------------------------------------------------------------------------------------------
// Checks

async function inspectOutput(body: Buffer, source: Source): Promise<OutputCheck> {
  const meta = await sharp(body, { animated: true }).metadata();
  const frames = meta.pages ?? 1;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const expectedWidth = Math.min(WIDTH, source.width);
  const problems: string[] = [];
  if (meta.format !== "webp") problems.push(`${meta.format}, not webp`);
  if (meta.width !== expectedWidth) problems.push(`${meta.width} px wide, not ${expectedWidth}`);
  if (frames !== source.frames) problems.push(`${frames} frames, not ${source.frames}`);
  if (body.equals(source.body)) problems.unshift("the source passed through unchanged");
  return {
    format: meta.format ?? "?",
    width: meta.width ?? 0,
    height,
    frames,
    hasAlpha: meta.hasAlpha ?? false,
    bytes: body.length,
    comparable: problems.length === 0,
    note: problems.join("; "),
  };
}

// ---------------------------------------------------------------------------------------------------
// Runs

interface Context {
  origin: Origin;
  work: string;
  sources: Source[];
  app: OurApp;
  phases: Record<string, number[]>;
  nextCacheDir: string;
}

let runId = 0;
const CORES = availableParallelism();

/** Busy time of the machine not accounted for by the run's own processes, as a share of all cores. */
function otherLoad(machineMs: number, ownMs: number, wallMs: number): number {
  return Math.max(0, machineMs - ownMs) / (wallMs * CORES);
}

async function runHttp(
  ctx: Context,
  id: Exclude<ContenderId, "raw">,
  source: Source,
  concurrency: number,
): Promise<RunResult> {
  const port = id === "ours" ? ctx.app.port : await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child =
    id === "ours"
      ? await ctx.app.start()
      : id === "next"
        ? await startProcess(
            ["node_modules/next/dist/bin/next", "start", PEER_DIR, "-H", "127.0.0.1", "-p", String(port)],
            { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
            `${base}/`,
            countPassThrough,
          )
        : await startProcess(
            ["bench/peers/ipx-server.mjs", String(port), ctx.origin.host],
            { ...process.env, NODE_ENV: "production" },
            `${base}/`,
          );
  const urlFor = async (src: string) =>
    id === "ours"
      ? await ctx.app.signed(OPERATIONS, src)
      : id === "next"
        ? `${base}/_next/image?url=${encodeURIComponent(src)}&w=${WIDTH}&q=80`
        : `${base}/${OPERATIONS}${source.frames > 1 ? ",animated" : ""}/${src}`;

  const run = ++runId;
  const warningsBefore = passThroughWarnings;
  let first: Buffer | undefined;
  const bytes: number[] = [];
  const cacheHeaders: Record<string, number> = {};
  // Every URL is made before the clock starts: the client's part is the HTTP, as with the peers' unsigned URLs.
  const urlsOf = (phase: "warm" | "measure", count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        urlFor(`http://${ctx.origin.host}/src/${source.kind}/${run}-${phase}-${i}.${source.ext}`),
      ),
    );
  const request = (phase: "warm" | "measure", urls: string[]) => async (i: number) => {
    const response = await fetch(urls[i]!, { headers: { Accept: ACCEPT } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200)
      throw new Error(`${id} ${source.kind}: status ${response.status}: ${body.toString().slice(0, 200)}`);
    if (phase === "warm") {
      first ??= body;
      return;
    }
    bytes.push(body.length);
    const cache = response.headers.get("x-nextjs-cache");
    if (cache) cacheHeaders[cache] = (cacheHeaders[cache] ?? 0) + 1;
    for (const [, name, ms] of (response.headers.get("server-timing") ?? "").matchAll(/(\w+);dur=([\d.]+)/g)) {
      (ctx.phases[`${source.kind} c${concurrency} ${name}`] ??= []).push(Number(ms));
    }
  };

  // Warm-up: loads sharp, fills our key cache, lets each connection open; then the origin counter starts.
  const warmUrls = await urlsOf("warm", Math.max(4, concurrency));
  await drive(warmUrls.length, concurrency, request("warm", warmUrls));
  const measureUrls = await urlsOf("measure", REQUESTS[source.kind]);
  const sharpFiles = mappedFilesOfTree(child.pid!, SHARP_FILES);
  const originBefore = ctx.origin.counts.GET + ctx.origin.counts.HEAD;
  const clientBefore = process.cpuUsage();
  const cpuBefore = cpuMsOfTree(child.pid!);
  const serverBefore = cpuMsOfProcess(child.pid!);
  // The embedded database's process lives as long as the server: its CPU is read the same way.
  const databasePids = processesOfTree(child.pid!, /embedded-database/);
  const databaseCpu = () => databasePids.reduce((sum, pid) => sum + cpuMsOfProcess(pid), 0);
  const databaseBefore = databaseCpu();
  const machineBefore = machineBusyMs();
  const measured = await drive(measureUrls.length, concurrency, request("measure", measureUrls));
  const machineMs = machineBusyMs() - machineBefore;
  const cpuMs = cpuMsOfTree(child.pid!) - cpuBefore;
  const serverMs = cpuMsOfProcess(child.pid!) - serverBefore;
  const databaseMs = databaseCpu() - databaseBefore;
  const client = process.cpuUsage(clientBefore);
  const clientMs = (client.user + client.system) / 1000;
  const peak = peakRssOfTree(child.pid!);
  // Where the signed route's peak sits: its own process, the embedded database's, the transform processes'.
  const peakParts = {
    server: peakRssOf([child.pid!]),
    database: peakRssOf(databasePids),
    transforms: peakRssOf(processesOfTree(child.pid!, /transform-worker/)),
  };
  const originRequests = ctx.origin.counts.GET + ctx.origin.counts.HEAD - originBefore;
  const placements = id === "ours" ? placementsOf(await scrapeMetrics(base)) : undefined;
  await stop(child);

  const result: RunResult = {
    ...summarise(LABELS[id], concurrency, measured, peak, cpuMs),
    contender: id,
    source: source.kind,
    outputBytes: bytes.reduce((a, b) => a + b, 0) / bytes.length,
    first: await inspectOutput(first!, source),
    warnings: [],
    originRequestsPerImage: originRequests / measured.latencies.length,
    ...(id === "ours"
      ? {
          serverCpuMsPerRequest: serverMs / measured.latencies.length,
          databaseCpuMsPerRequest: databaseMs / measured.latencies.length,
          peakRssParts: peakParts,
          placements,
        }
      : {}),
    clientCpuMsPerRequest: clientMs / measured.latencies.length,
    otherLoad: otherLoad(machineMs, cpuMs + clientMs, measured.wallMs),
    sharpFiles,
  };
  if (id === "next") {
    result.cacheHeaders = cacheHeaders;
    const hits = Object.entries(cacheHeaders)
      .filter(([k]) => k !== "MISS")
      .reduce((a, [, n]) => a + n, 0);
    if (hits > 0)
      result.warnings.push(`Next served ${hits} responses from its cache (${JSON.stringify(cacheHeaders)})`);
    result.cacheEntries = existsSync(ctx.nextCacheDir) ? readdirSync(ctx.nextCacheDir).length : 0;
    result.passThroughWarnings = passThroughWarnings - warningsBefore;
    rmSync(ctx.nextCacheDir, { recursive: true, force: true });
  }
  return result;
}

async function runRaw(ctx: Context, source: Source, concurrency: number): Promise<RunResult> {
  const file = path.join(ctx.work, `source.${source.ext}`);
  const worker = spawnSync(
    process.execPath,
    [
      "node_modules/tsx/dist/cli.mjs",
      "bench/raw-sharp-worker.ts",
      file,
      source.kind,
      String(REQUESTS[source.kind]),
      String(concurrency),
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (worker.status !== 0) throw new Error(`raw sharp worker failed: ${worker.stderr}`);
  const raw = JSON.parse(worker.stdout.trim().split("\n").pop()!) as {
    latencies: number[];
    wallMs: number;
    peakRss: number;
    cpuMs: number;
    machineMs: number;
    sample: string;
    sharpFiles: string[];
  };
  const sample = Buffer.from(raw.sample, "base64");
  return {
    ...summarise(LABELS.raw, concurrency, raw, raw.peakRss, raw.cpuMs),
    contender: "raw",
    source: source.kind,
    outputBytes: sample.length,
    first: await inspectOutput(sample, source),
    warnings: [],
    otherLoad: otherLoad(raw.machineMs, raw.cpuMs, raw.wallMs),
    sharpFiles: raw.sharpFiles,
  };
}

// ---------------------------------------------------------------------------------------------------
// Reporting

const SOURCE_LABEL: Record<SourceKind, string> = { jpeg: "JPEG 12 MP", png: "PNG 2 MP α", gif: "GIF 20 fr" };

function resultsTable(results: RunResult[]): string {
  const lines = [
    "| contender | source | conc. | req/s | p50 ms | p95 ms | p99 ms | CPU ms/img | peak RSS MB | output KB (vs raw) | other load | check |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const size = `${fmt(r.outputBytes / 1024)}${r.sizeVsRaw === undefined ? "" : ` (${r.sizeVsRaw >= 1 ? "+" : ""}${fmt((r.sizeVsRaw - 1) * 100, 0)} %)`}`;
    const check = r.first.comparable
      ? `ok (${r.first.format} ${r.first.width}×${r.first.height}${r.first.frames > 1 ? ` ×${r.first.frames}` : ""})`
      : `**not comparable**: ${r.first.note}`;
    const cells = [
      r.label,
      SOURCE_LABEL[r.source],
      r.concurrency,
      fmt(r.rps),
      fmt(r.p50),
      fmt(r.p95),
      fmt(r.p99),
      fmt(r.cpuMsPerRequest, 0),
      fmt(r.peakRssMb, 0),
      size,
      `${fmt(r.otherLoad * 100, 0)} %`,
      check,
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

interface Ratio {
  source: SourceKind;
  concurrency: number;
  peer: Exclude<ContenderId, "ours">;
  ratio: number | null;
  target: number | null;
  met: boolean | null;
  note: string;
}

/** The speed targets: at least the peers' throughput, and this share of raw sharp's. */
const TARGET_VS_PEERS = 1.0;
const TARGET_VS_RAW = 0.85;
/** Peak RSS of the whole process tree at concurrency 8, at most this multiple of Next's. */
const TARGET_RSS_VS_NEXT = 1.5;

function parts(r: RunResult): string {
  const p = r.peakRssParts;
  if (!p) return "";
  const mb = (bytes: number) => fmt(bytes / 2 ** 20, 0);
  const ran = Object.entries(r.placements ?? {}).map(([where, count]) => `${where} ${count}`);
  const placed = ran.length > 0 ? `; transforms ran: ${ran.join(", ")}` : "";
  return ` (server ${mb(p.server)}, database ${mb(p.database)}, transform processes ${mb(p.transforms)}${placed})`;
}

/** `optstuff_transform_placements` by where, or by reason for those sent to a transform process. */
function placementsOf(metrics: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [, where, reason, count] of metrics.matchAll(
    /^optstuff_transform_placements\{where="([^"]*)",reason="([^"]*)"\} (\d+)/gm,
  ))
    if (Number(count) > 0) out[where === "in-process" ? where : reason!] = Number(count);
  return out;
}

function ratios(results: RunResult[]): Ratio[] {
  const out: Ratio[] = [];
  const find = (id: ContenderId, source: SourceKind, c: number) =>
    results.find((r) => r.contender === id && r.source === source && r.concurrency === c);
  for (const source of ["jpeg", "png", "gif"] as SourceKind[]) {
    for (const concurrency of CONCURRENCY) {
      const ours = find("ours", source, concurrency);
      for (const peer of ["next", "ipx", "raw"] as const) {
        const other = find(peer, source, concurrency);
        if (!ours || !other) continue;
        const target = peer === "raw" ? TARGET_VS_RAW : TARGET_VS_PEERS;
        if (!other.first.comparable) {
          out.push({
            source,
            concurrency,
            peer,
            ratio: null,
            target,
            met: null,
            note: `${LABELS[peer]} did less work (${other.first.note}): not compared`,
          });
          continue;
        }
        const ratio = ours.rps / other.rps;
        out.push({ source, concurrency, peer, ratio, target, met: target === null ? null : ratio >= target, note: "" });
      }
    }
  }
  return out;
}

function ratioTable(list: Ratio[]): string {
  const lines = ["| source | conc. | ours / Next | ours / ipx | ours / raw sharp |", "|---|---|---|---|---|"];
  const cell = (r: Ratio | undefined) => {
    if (!r) return "–";
    if (r.ratio === null) return "n/c (peer did less work)";
    const mark = r.met === null ? "" : r.met ? " ✓" : ` ✗ (target ≥ ${r.target})`;
    return `${fmt(r.ratio, 2)}×${mark}`;
  };
  for (const source of ["jpeg", "png", "gif"] as SourceKind[]) {
    for (const concurrency of CONCURRENCY) {
      const pick = (peer: string) =>
        list.find((r) => r.source === source && r.concurrency === concurrency && r.peer === peer);
      if (!pick("next") && !pick("ipx") && !pick("raw")) continue;
      lines.push(
        `| ${SOURCE_LABEL[source]} | ${concurrency} | ${cell(pick("next"))} | ${cell(pick("ipx"))} | ${cell(pick("raw"))} |`,
      );
    }
  }
  return lines.join("\n");
}

const COLOURS: Record<ContenderId, string> = { ours: "#0072B2", next: "#D55E00", ipx: "#009E73", raw: "#7f7f7f" };

/** A round axis maximum with its tick step (1, 2, 2.5 or 5 × 10^n), about 4–6 ticks. */
function niceAxis(max: number): { top: number; step: number } {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  return { top: Math.ceil(max / step) * step, step };
}

/** Grouped bars of req/s: one panel per source (own scale), a group per concurrency, a bar per contender. */
function chartSvg(results: RunResult[], title: string): string {
  const W = 1000;
  const H = 480;
  const top = 100;
  const bottom = 380;
  const panelW = W / 3;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="26" font-size="17" text-anchor="middle" font-weight="bold">${title}</text>`,
    `<text x="${W / 2}" y="46" font-size="12" text-anchor="middle" fill="#444">requests/s, higher is better; 800 px WebP q80, a distinct source URL per request; each panel has its own scale</text>`,
  ];
  (["jpeg", "png", "gif"] as SourceKind[]).forEach((source, p) => {
    const x0 = p * panelW + 45;
    const inner = panelW - 60;
    const rows = results.filter((r) => r.source === source);
    const axis = niceAxis(Math.max(1, ...rows.filter((r) => r.first.comparable).map((r) => r.rps)) * 1.08);
    const y = (v: number) => bottom - ((bottom - top) * v) / axis.top;
    parts.push(
      `<text x="${x0 + inner / 2}" y="${top - 18}" font-size="14" text-anchor="middle" font-weight="bold">${SOURCE_LABEL[source]}</text>`,
    );
    for (let v = 0; v <= axis.top + 1e-9; v += axis.step) {
      parts.push(`<line x1="${x0}" y1="${y(v)}" x2="${x0 + inner}" y2="${y(v)}" stroke="#e4e4e4"/>`);
      parts.push(
        `<text x="${x0 - 5}" y="${y(v) + 4}" font-size="10" text-anchor="end" fill="#555">${Number(v.toFixed(2))}</text>`,
      );
    }
    parts.push(`<line x1="${x0}" y1="${bottom}" x2="${x0 + inner}" y2="${bottom}" stroke="#333"/>`);
    parts.push(`<line x1="${x0}" y1="${top}" x2="${x0}" y2="${bottom}" stroke="#333"/>`);
    const groupW = inner / CONCURRENCY.length;
    CONCURRENCY.forEach((c, g) => {
      const gx = x0 + g * groupW;
      const barW = (groupW - 20) / CONTENDERS.length;
      parts.push(
        `<text x="${gx + groupW / 2}" y="${bottom + 18}" font-size="12" text-anchor="middle">concurrency ${c}</text>`,
      );
      CONTENDERS.forEach((id, b) => {
        const r = rows.find((x) => x.contender === id && x.concurrency === c);
        const bx = gx + 10 + b * barW;
        if (!r) return;
        if (!r.first.comparable) {
          parts.push(
            `<rect x="${bx + 2}" y="${bottom - 40}" width="${barW - 4}" height="40" fill="none" stroke="${COLOURS[id]}" stroke-dasharray="3,2"/>`,
          );
          parts.push(
            `<text x="${bx + barW / 2}" y="${bottom - 46}" font-size="10" text-anchor="middle" fill="${COLOURS[id]}">n/c</text>`,
          );
          return;
        }
        parts.push(
          `<rect x="${bx + 2}" y="${y(r.rps)}" width="${barW - 4}" height="${bottom - y(r.rps)}" fill="${COLOURS[id]}"/>`,
        );
        parts.push(
          `<text x="${bx + barW / 2}" y="${y(r.rps) - 4}" font-size="10" text-anchor="middle">${fmt(r.rps)}</text>`,
        );
      });
    });
  });
  CONTENDERS.forEach((id, i) => {
    const x = 45 + i * 240;
    parts.push(
      `<rect x="${x}" y="${H - 62}" width="14" height="14" fill="${COLOURS[id]}"/><text x="${x + 20}" y="${H - 50}" font-size="12">${LABELS[id]}</text>`,
    );
  });
  parts.push(
    `<text x="45" y="${H - 20}" font-size="11" fill="#555">Bars left to right in legend order. n/c: not comparable, the contender did less work (Next.js passes animated GIFs through untouched).</text>`,
  );
  parts.push("</svg>");
  return parts.join("\n");
}

// ---------------------------------------------------------------------------------------------------

/** The chart: artifacts/bench-throughput.svg, rasterised to docs/bench-throughput.png when every contender ran. */
async function writeChart(results: RunResult[], date: Date): Promise<void> {
  const cores = availableParallelism();
  const svg = chartSvg(
    results,
    `Transform throughput, ${date.toISOString().slice(0, 10)} (${cores} cores, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips})`,
  );
  writeFileSync("artifacts/bench-throughput.svg", svg);
  if (new Set(results.map((r) => r.contender)).size === 4 && new Set(results.map((r) => r.source)).size === 3)
    await sharp(Buffer.from(svg), { density: 144 }).png().toFile("docs/bench-throughput.png");
}

async function main(): Promise<void> {
  // `--chart`: only redraw the chart from the last artifacts/bench-image.json.
  if (process.argv[2] === "--chart") {
    const last = JSON.parse(readFileSync("artifacts/bench-image.json", "utf8")) as {
      date: string;
      results: RunResult[];
    };
    return writeChart(last.results, new Date(last.date));
  }
  const started = performance.now();
  if (CONTENDERS.includes("ours") && !existsSync(".next/BUILD_ID"))
    execFileSync("npm", ["run", "-s", "build"], { stdio: "inherit" });
  if (CONTENDERS.includes("next")) buildPeerIfNeeded();
  // The app under test is whatever .next holds: note which build and commit, and warn if it changes.
  const buildId = () => (existsSync(".next/BUILD_ID") ? readFileSync(".next/BUILD_ID", "utf8").trim() : "none");
  const build = {
    buildId: buildId(),
    commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim(),
  };
  const work = mkdtempSync(path.join(tmpdir(), "optstuff-bench-"));
  const sources = (await makeSources()).filter((s) =>
    (process.env.BENCH_SOURCES ?? "jpeg,png,gif").split(",").includes(s.kind),
  );
  for (const s of sources) writeFileSync(path.join(work, `source.${s.ext}`), s.body);
  const origin = await startOrigin(sources);
  const postgres = DATABASE === "postgres" && CONTENDERS.includes("ours") ? await startPostgres() : null;
  const database = postgres ? await productionDatabaseEnv(postgres) : null;
  // Result cache off: every request must transform.
  const app = await prepareOurApp(work, origin.host, { OPTSTUFF_RESULT_CACHE_BYTES: "0", ...database?.env });
  const ctx: Context = {
    origin,
    work,
    sources,
    app,
    phases: {},
    nextCacheDir: path.join(PEER_DIR, ".next/cache/images"),
  };
  rmSync(ctx.nextCacheDir, { recursive: true, force: true });

  console.log(
    `app build ${build.buildId} (HEAD ${build.commit}); sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}; ${OPERATIONS}; contenders: ${CONTENDERS.map((id) => LABELS[id]).join(", ")}`,
  );
  for (const s of sources)
    console.log(
      `source ${s.kind}: ${s.description}, ${fmt(s.body.length / 1024 / 1024, 2)} MB, ${REQUESTS[s.kind]} requests per run`,
    );

  // Interleaved (concurrency → source → contender), a fresh process per run, so drift on this shared
  // machine spreads over every contender and each peak RSS belongs to one run.
  const results: RunResult[] = [];
  for (const concurrency of CONCURRENCY) {
    for (const source of sources) {
      for (const id of CONTENDERS) {
        const r = id === "raw" ? await runRaw(ctx, source, concurrency) : await runHttp(ctx, id, source, concurrency);
        results.push(r);
        const server =
          r.serverCpuMsPerRequest === undefined
            ? ""
            : ` (server process ${fmt(r.serverCpuMsPerRequest, 0)}, database ${fmt(r.databaseCpuMsPerRequest ?? 0, 1)})`;
        console.log(
          `  ${r.label} ${source.kind} c${concurrency}: ${fmt(r.rps)} req/s, p50 ${fmt(r.p50)} ms, ${fmt(r.cpuMsPerRequest, 0)} CPU ms/img${server}, ${fmt(r.peakRssMb, 0)} MB${parts(r)}${r.first.comparable ? "" : ` — not comparable: ${r.first.note}`}`,
        );
      }
    }
  }

  // Output sizes against raw sharp's, and the same-library check.
  const rawFiles = results.find((r) => r.contender === "raw")?.sharpFiles.join(", ");
  for (const r of results) {
    const raw = results.find((x) => x.contender === "raw" && x.source === r.source && x.concurrency === r.concurrency);
    if (raw && r.contender !== "raw") {
      r.sizeVsRaw = r.outputBytes / raw.outputBytes;
      if (r.first.comparable && Math.abs(r.sizeVsRaw - 1) > SIZE_TOLERANCE)
        r.warnings.push(`output ${fmt((r.sizeVsRaw - 1) * 100, 0)} % vs raw sharp`);
    }
    // One sharp binding and one libvips, the same files as raw sharp's (a pass-through never loads sharp).
    const files = r.sharpFiles.join(", ");
    if (r.first.comparable && (r.sharpFiles.length !== 2 || (rawFiles !== undefined && files !== rawFiles)))
      r.warnings.push(`sharp files mapped: ${files || "none"}`);
    if (!r.first.comparable) r.warnings.push(`did less work: ${r.first.note}`);
  }

  origin.server.close();
  rmSync(work, { recursive: true, force: true });
  await database?.drop();
  await postgres?.stop();

  // Report.
  console.log(`\n${resultsTable(results)}`);
  const ratioList = ratios(results);
  console.log(`\n${ratioTable(ratioList)}`);
  console.log(`\nPeak RSS at concurrency 8, signed route vs Next optimizer (target: ≤ ${TARGET_RSS_VS_NEXT}×):`);
  const memory: { source: SourceKind; oursMb: number; nextMb: number; met: boolean }[] = [];
  for (const source of ["jpeg", "png", "gif"] as SourceKind[]) {
    const ours = results.find((r) => r.contender === "ours" && r.source === source && r.concurrency === 8);
    const next = results.find((r) => r.contender === "next" && r.source === source && r.concurrency === 8);
    if (!ours || !next) continue;
    const met = ours.peakRssMb <= TARGET_RSS_VS_NEXT * next.peakRssMb;
    memory.push({ source, oursMb: ours.peakRssMb, nextMb: next.peakRssMb, met });
    const all = results
      .filter((r) => r.source === source && r.concurrency === 8)
      .map((r) => `${r.contender} ${fmt(r.peakRssMb, 0)}`);
    console.log(
      `  ${SOURCE_LABEL[source]}: ours ${fmt(ours.peakRssMb, 0)} MB vs Next ${fmt(next.peakRssMb, 0)} MB = ${fmt(ours.peakRssMb / next.peakRssMb, 2)}× ${met ? "✓" : "✗"} (all: ${all.join(", ")} MB)`,
    );
  }
  const phaseSummary: Record<string, { p50: number; p95: number }> = {};
  for (const [name, values] of Object.entries(ctx.phases))
    phaseSummary[name] = { p50: percentile(values, 50), p95: percentile(values, 95) };
  console.log("\nSigned route Server-Timing, p50 (p95) ms:");
  for (const source of ["jpeg", "png", "gif"] as SourceKind[]) {
    for (const c of CONCURRENCY) {
      const cells = ["auth", "fetch", "queue", "transform", "total"]
        .map((n) => phaseSummary[`${source} c${c} ${n}`])
        .map((s) => (s ? `${fmt(s.p50)} (${fmt(s.p95)})` : "–"));
      if (cells.some((x) => x !== "–"))
        console.log(
          `  ${SOURCE_LABEL[source]} c${c}: auth ${cells[0]}, fetch ${cells[1]}, queue ${cells[2]}, transform ${cells[3]}, total ${cells[4]}`,
        );
    }
  }
  const originPerImage = results
    .filter((r) => r.originRequestsPerImage !== undefined)
    .map((r) => `${r.contender} ${r.source} c${r.concurrency} ${fmt(r.originRequestsPerImage!, 2)}`);
  console.log(`\nOrigin requests per image: ${originPerImage.join("; ")}`);
  console.log(
    `Next, measured responses by X-Nextjs-Cache (disk cache entries after the run; pass-through warnings): ${results
      .filter((r) => r.cacheHeaders)
      .map(
        (r) =>
          `${r.source} c${r.concurrency} ${JSON.stringify(r.cacheHeaders)} (${r.cacheEntries}; ${r.passThroughWarnings})`,
      )
      .join("; ")}`,
  );
  console.log(`sharp binaries mapped: ${[...new Set(results.flatMap((r) => r.sharpFiles))].join(", ")}`);
  const warnings = results.flatMap((r) => r.warnings.map((w) => `${r.label} ${r.source} c${r.concurrency}: ${w}`));
  if (buildId() !== build.buildId)
    warnings.push(
      `.next was rebuilt during the run (${build.buildId} → ${buildId()}): figures of the signed route mix two builds`,
    );
  console.log(warnings.length ? `\nWARNINGS:\n${warnings.map((w) => `  - ${w}`).join("\n")}` : "\nNo warnings.");

  mkdirSync("artifacts", { recursive: true });
  if (DATABASE === "embedded") await writeChart(results, new Date());
  writeFileSync(
    DATABASE === "postgres" ? "artifacts/bench-image-postgres.json" : "artifacts/bench-image.json",
    JSON.stringify(
      {
        date: new Date().toISOString(),
        build,
        database: postgres ? `PostgreSQL (${postgres.origin})` : "embedded PGlite",
        sharp: sharp.versions,
        node: process.version,
        requests: REQUESTS,
        operations: OPERATIONS,
        sources: sources.map(({ body, ...s }) => ({ ...s, bytes: body.length })),
        contenders: Object.fromEntries(CONTENDERS.map((id) => [id, LABELS[id]])),
        results,
        ratios: ratioList,
        memoryAtConcurrency8: memory,
        serverTiming: phaseSummary,
        warnings,
        wallSeconds: (performance.now() - started) / 1000,
      },
      null,
      2,
    ),
  );
  console.log(
    `\nwall time ${fmt((performance.now() - started) / 1000, 0)} s; artifacts/bench-image${DATABASE === "postgres" ? "-postgres" : ""}.json${CONTENDERS.length === 4 ? ", docs/bench-throughput.png" : ""}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});

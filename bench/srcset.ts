/**
 * npm run bench:srcset — what a next/image page really asks of an image proxy: photographic sources
 * (JPEG and PNG, 2–12 MP) × next/image's default device widths (640…3840, none wider than its source)
 * × an AVIF-capable and a WebP-only browser, shuffled, at concurrency 8, every URL distinct. Contenders:
 *   - OptStuff cold (fresh process, empty result store), then the same URLs after a restart,
 *   - the Next.js optimizer `/_next/image` with its defaults (disk cache on, starting empty),
 *   - ipx with its own server (no result cache),
 *   - raw sharp in this process, no HTTP: the same encodes (the ceiling for anyone on sharp), and decode
 *     plus resize alone (what one shared decode per source could save at most).
 * Each contender's outputs are compared with a direct sharp resize of the original at the same width
 * (PSNR and SSIM on luma, on a sample), so "faster" never means "worse". Time to the first byte is kept
 * per browser: OptStuff answers a cold AVIF request with an interim WebP and makes the AVIF after it
 * (AVIF without the wait), so its cold run also waits for that work (its CPU counts), then asks each
 * interim URL once more and counts the AVIF answers.
 * BENCH_SOURCES (default 20) sets the number of sources; results in artifacts/bench-srcset.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { drive, fmt, percentile } from "./lib/load";
import { cpuMsOfTree, peakRssOfTree } from "./lib/process-memory";
import {
  buildPeerIfNeeded,
  freePort,
  killAll,
  PEER_DIR,
  prepareOurApp,
  scrapeMetrics,
  startProcess,
  stop,
} from "./lib/servers";
import { similarity } from "./lib/similarity";

const COUNT = Number(process.env.BENCH_SOURCES ?? 20);
const WIDTHS = [640, 750, 828, 1080, 1200, 1920, 2048, 3840];
const BROWSERS = {
  avif: "image/avif,image/webp,image/apng,image/*,*/*;q=0.8",
  webp: "image/webp,image/apng,image/*,*/*;q=0.8",
};
const CONCURRENCY = 8;
/** BENCH_PEERS=0 measures OptStuff alone (a quick look at its own figures; the comparison needs the peers). */
const PEERS = process.env.BENCH_PEERS !== "0";
const QUALITY = 75;
const SAMPLE = 24;

interface Photo {
  name: string;
  contentType: string;
  width: number;
  height: number;
  body: Buffer;
}

interface Request {
  photo: Photo;
  width: number;
  browser: keyof typeof BROWSERS;
}

/** Mixed sizes: JPEGs from 2 to 12 MP, PNGs from 2 to 4 MP (larger noise PNGs pass the 25 MB source cap). */
async function makePhotos(): Promise<Photo[]> {
  const photos: Photo[] = [];
  for (let i = 0; i < COUNT; i++) {
    const png = i % 4 === 3;
    const megapixels = png ? 2 + (i % 3) : 2 + ((i * 7) % 11);
    const width = Math.round(Math.sqrt(megapixels * 1e6 * (4 / 3)));
    const height = Math.round((width * 3) / 4);
    const base = sharp({
      create: {
        width,
        height,
        channels: 3,
        background: { r: 40 + i * 9, g: 120, b: 200 - i * 7 },
        noise: { type: "gaussian", mean: 128, sigma: 30 },
      },
    }).blur(1.5);
    const body = png ? await base.png({ compressionLevel: 6 }).toBuffer() : await base.jpeg({ quality: 88 }).toBuffer();
    photos.push({
      name: `p${i}.${png ? "png" : "jpg"}`,
      contentType: png ? "image/png" : "image/jpeg",
      width,
      height,
      body,
    });
  }
  return photos;
}

function startOrigin(photos: Photo[]): Promise<{ host: string; server: http.Server; gets: () => number }> {
  const byName = new Map(photos.map((p) => [p.name, p]));
  let gets = 0;
  const server = http.createServer((req, res) => {
    const photo = byName.get(path.basename(new URL(req.url ?? "/", "http://o").pathname));
    if (!photo) return void res.writeHead(404).end();
    if (req.method === "GET") gets++;
    res.writeHead(200, {
      "Content-Type": photo.contentType,
      "Content-Length": photo.body.length,
      "Cache-Control": "public, max-age=3600",
    });
    res.end(req.method === "HEAD" ? undefined : photo.body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ host: `127.0.0.1:${(server.address() as AddressInfo).port}`, server, gets: () => gets }),
    ),
  );
}

function shuffled<T>(items: T[], seed = 7): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Outcome {
  contender: string;
  requests: number;
  rps: number;
  cpuMsPerImage: number;
  peakRssMb: number;
  originGets: number;
  meanKb: number;
  transforms?: number;
  psnr: number;
  ssim: number;
  formats: Record<string, number>;
  /** Time to the response's headers, per browser: p50 and p95 ms. */
  ttfb?: Record<keyof typeof BROWSERS, { p50: number; p95: number }>;
  /** Answers that were interim (short-lived, not immutable: AVIF made after the answer). */
  interim?: number;
}

async function measure(
  contender: string,
  pid: number,
  requests: Request[],
  urlOf: (r: Request) => string,
  originGets: () => number,
): Promise<Outcome & { sample: Array<{ request: Request; body: Buffer }>; interimRequests: Request[] }> {
  const cpuBefore = cpuMsOfTree(pid);
  const getsBefore = originGets();
  const formats: Record<string, number> = {};
  let bytes = 0;
  const sample: Array<{ request: Request; body: Buffer }> = [];
  const every = Math.max(1, Math.floor(requests.length / SAMPLE));
  const ttfb: Record<keyof typeof BROWSERS, number[]> = { avif: [], webp: [] };
  const interim: Request[] = [];
  const run = await drive(requests.length, CONCURRENCY, async (i) => {
    const request = requests[i]!;
    const sent = performance.now();
    const response = await fetch(urlOf(request), { headers: { Accept: BROWSERS[request.browser] } });
    ttfb[request.browser].push(performance.now() - sent);
    if (!(response.headers.get("cache-control") ?? "immutable").includes("immutable")) interim.push(request);
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${contender}: ${response.status} ${body.toString().slice(0, 200)}`);
    bytes += body.length;
    const type = response.headers.get("content-type") ?? "?";
    formats[type] = (formats[type] ?? 0) + 1;
    if (i % every === 0) sample.push({ request, body });
  });
  const cpuMs = cpuMsOfTree(pid) - cpuBefore;
  const quality = await compare(sample);
  return {
    contender,
    requests: requests.length,
    rps: requests.length / (run.wallMs / 1000),
    cpuMsPerImage: cpuMs / requests.length,
    peakRssMb: peakRssOfTree(pid) / 2 ** 20,
    originGets: originGets() - getsBefore,
    meanKb: bytes / requests.length / 1024,
    ...quality,
    formats,
    ttfb: {
      avif: { p50: percentile(ttfb.avif, 50), p95: percentile(ttfb.avif, 95) },
      webp: { p50: percentile(ttfb.webp, 50), p95: percentile(ttfb.webp, 95) },
    },
    interim: interim.length,
    interimRequests: interim,
    sample,
  };
}

/** Waits until no transform has run or waited (later ones included) for 1.5 s: the work after the answers is done. */
async function settled(base: string): Promise<void> {
  let idle = 0;
  while (idle < 3) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const text = await scrapeMetrics(base);
    const busy = [...text.matchAll(/^optstuff_transforms\{state="(?:running|queued|later)"\} (\d+)/gm)].some(
      (m) => Number(m[1]) > 0,
    );
    idle = busy ? 0 : idle + 1;
  }
}

/** The second request of each interim answer, once the work after the answers is done: AVIF now? */
async function secondRequests(
  requests: Request[],
  urlOf: (r: Request) => string,
): Promise<{ avif: number; of: number; otherwise: string[] }> {
  let avif = 0;
  const otherwise: string[] = [];
  for (const request of requests) {
    const response = await fetch(urlOf(request), { headers: { Accept: BROWSERS[request.browser] } });
    await response.arrayBuffer();
    if (response.headers.get("content-type") === "image/avif") avif++;
    else
      otherwise.push(
        `${request.photo.width}×${request.photo.height} at w ${request.width}: ${response.headers.get("content-type")}, ${response.headers.get("cache-control")}`,
      );
  }
  return { avif, of: requests.length, otherwise };
}

/** Mean PSNR and SSIM of the sampled outputs against sharp resizing the original to the same width. */
async function compare(sample: Array<{ request: Request; body: Buffer }>): Promise<{ psnr: number; ssim: number }> {
  let psnr = 0;
  let ssim = 0;
  for (const { request, body } of sample) {
    const { width, height } = await sharp(body).metadata();
    const reference = await sharp(request.photo.body).resize(width, height, { fit: "fill" }).png().toBuffer();
    const measured = await similarity(reference, body);
    psnr += measured.psnr;
    ssim += measured.ssim;
  }
  return { psnr: psnr / sample.length, ssim: ssim / sample.length };
}

/** AVIF up to 4K output at q_75's AVIF equivalent and effort 2, else WebP q75: what the route encodes. */
async function rawSharp(requests: Request[], encode: boolean): Promise<Outcome> {
  sharp.concurrency(1);
  sharp.cache(false);
  const formats: Record<string, number> = {};
  const sample: Array<{ request: Request; body: Buffer }> = [];
  const every = Math.max(1, Math.floor(requests.length / SAMPLE));
  let bytes = 0;
  const cpuBefore = process.cpuUsage();
  const run = await drive(requests.length, CONCURRENCY, async (i) => {
    const request = requests[i]!;
    const resized = sharp(request.photo.body, { autoOrient: true }).resize({
      width: request.width,
      withoutEnlargement: true,
    });
    const height = Math.round((request.photo.height * request.width) / request.photo.width);
    const avif = request.browser === "avif" && request.width * height <= 3840 * 2160;
    if (!encode) return void (await resized.raw().toBuffer());
    const body = await (
      avif ? resized.avif({ quality: Math.round((QUALITY * 50) / 80), effort: 2 }) : resized.webp({ quality: QUALITY })
    ).toBuffer();
    bytes += body.length;
    const type = avif ? "avif" : "webp";
    formats[type] = (formats[type] ?? 0) + 1;
    if (i % every === 0) sample.push({ request, body });
  });
  const cpu = process.cpuUsage(cpuBefore);
  const quality = encode ? await compare(sample) : { psnr: NaN, ssim: NaN };
  return {
    contender: encode ? "raw sharp, same encodes (no HTTP)" : "raw sharp, decode + resize only",
    requests: requests.length,
    rps: requests.length / (run.wallMs / 1000),
    cpuMsPerImage: (cpu.user + cpu.system) / 1000 / requests.length,
    peakRssMb: NaN,
    originGets: 0,
    meanKb: bytes / requests.length / 1024,
    ...quality,
    formats,
  };
}

async function transformsOf(base: string): Promise<number> {
  const text = await scrapeMetrics(base);
  return Number(/optstuff_results_total\{tier="transform"\} (\d+)/.exec(text)?.[1] ?? 0);
}

let secondPass: { avif: number; of: number; otherwise: string[] } | null = null;
let allWork: { answeredMs: number; afterMs: number } | null = null;

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), "optstuff-bench-srcset-"));
  process.on("exit", killAll);
  try {
    const photos = await makePhotos();
    const origin = await startOrigin(photos);
    const requests = shuffled(
      photos.flatMap((photo) =>
        WIDTHS.filter((w) => w <= photo.width).flatMap((width) =>
          (["avif", "webp"] as const).map((browser) => ({ photo, width, browser })),
        ),
      ),
    );
    const src = (r: Request) => `http://${origin.host}/${r.photo.name}`;
    console.log(
      `${photos.length} sources, ${requests.length} distinct URLs (widths × AVIF/WebP browsers), concurrency ${CONCURRENCY}`,
    );
    const results: Outcome[] = [];
    const keep = ({
      sample: _sample,
      interimRequests: _interim,
      ...outcome
    }: Outcome & { sample: unknown; interimRequests?: unknown }) => {
      results.push(outcome);
      console.log(
        `${outcome.contender}: ${fmt(outcome.rps, 2)} img/s, ${fmt(outcome.cpuMsPerImage, 0)} CPU ms/img, peak RSS ${fmt(outcome.peakRssMb, 0)} MB, PSNR ${fmt(outcome.psnr, 1)} dB, SSIM ${fmt(outcome.ssim, 4)}`,
      );
    };

    const app = await prepareOurApp(work, origin.host);
    // Signed before the clock starts: the client's part is the HTTP, as with the peers' unsigned URLs.
    const signedUrls = new Map(
      await Promise.all(
        requests.map(async (r) => [r, await app.signed(`w_${r.width},q_${QUALITY},f_auto`, src(r))] as const),
      ),
    );
    const ourUrl = (r: Request) => signedUrls.get(r)!;
    let child = await app.start();
    const cold = await measure("OptStuff cold", child.pid!, requests, ourUrl, origin.gets);
    // AVIF without the wait: the AVIFs of the interim answers are made after them. Their CPU and the
    // time until they are all made count too; then each interim URL is asked once more.
    const cpuAtAnswers = cpuMsOfTree(child.pid!);
    const answeredMs = (1000 * requests.length) / cold.rps;
    const settleStart = performance.now();
    await settled(app.base);
    const afterMs = performance.now() - settleStart - 1500;
    const cpuAfter = cpuMsOfTree(child.pid!) - cpuAtAnswers;
    secondPass = await secondRequests(cold.interimRequests, ourUrl);
    keep({
      ...cold,
      cpuMsPerImage: cold.cpuMsPerImage + cpuAfter / requests.length,
      transforms: await transformsOf(app.base),
    });
    allWork = { answeredMs, afterMs };
    await stop(child);
    child = await app.start();
    keep({
      ...(await measure("OptStuff after restart", child.pid!, requests, ourUrl, origin.gets)),
      transforms: await transformsOf(app.base),
    });
    await stop(child);

    if (!PEERS) {
      origin.server.close();
      report(results);
      return;
    }
    buildPeerIfNeeded();
    const nextPort = await freePort();
    rmSync(path.join(PEER_DIR, ".next/cache/images"), { recursive: true, force: true });
    const next = await startProcess(
      ["node_modules/next/dist/bin/next", "start", PEER_DIR, "-H", "127.0.0.1", "-p", String(nextPort)],
      { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", BENCH_NEXT_IMAGES: "srcset" },
      `http://127.0.0.1:${nextPort}/`,
    );
    keep(
      await measure(
        "Next.js /_next/image",
        next.pid!,
        requests,
        (r) => `http://127.0.0.1:${nextPort}/_next/image?url=${encodeURIComponent(src(r))}&w=${r.width}&q=${QUALITY}`,
        origin.gets,
      ),
    );
    await stop(next);

    const ipxPort = await freePort();
    const ipx = await startProcess(
      ["bench/peers/ipx-server.mjs", String(ipxPort), origin.host],
      { ...process.env, NODE_ENV: "production" },
      `http://127.0.0.1:${ipxPort}/`,
    );
    keep(
      await measure(
        "ipx",
        ipx.pid!,
        requests,
        (r) => `http://127.0.0.1:${ipxPort}/w_${r.width},q_${QUALITY},f_${r.browser}/${src(r)}`,
        origin.gets,
      ),
    );
    await stop(ipx);
    origin.server.close();

    for (const encode of [true, false]) {
      const outcome = await rawSharp(requests, encode);
      results.push(outcome);
      console.log(`${outcome.contender}: ${fmt(outcome.rps, 2)} img/s, ${fmt(outcome.cpuMsPerImage, 0)} CPU ms/img`);
    }

    report(results);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function report(results: Outcome[]): void {
  const by = (name: string) => results.find((r) => r.contender === name) ?? ({ rps: NaN } as Outcome);
  const cold = by("OptStuff cold");
  const warm = by("OptStuff after restart");
  console.log(
    "\n| contender | img/s | CPU ms/img | peak RSS MB | origin GETs | transforms | mean KB | PSNR dB | SSIM | formats |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const formats = Object.entries(r.formats)
      .map(([t, n]) => `${t.replace("image/", "")} ${n}`)
      .join(", ");
    console.log(
      `| ${r.contender} | ${fmt(r.rps, 2)} | ${fmt(r.cpuMsPerImage, 0)} | ${fmt(r.peakRssMb, 0)} | ${r.originGets} | ${r.transforms ?? "–"} | ${fmt(r.meanKb, 1)} | ${fmt(r.psnr, 1)} | ${fmt(r.ssim, 4)} | ${formats} |`,
    );
  }
  console.log(
    `\nOptStuff cold ÷ Next: ${fmt(cold.rps / by("Next.js /_next/image").rps, 2)}×, ÷ ipx: ${fmt(cold.rps / by("ipx").rps, 2)}× (target ≥ 2×)`,
  );
  console.log(
    `Raw sharp (same encodes) ÷ Next: ${fmt(by("raw sharp, same encodes (no HTTP)").rps / by("Next.js /_next/image").rps, 2)}×; OptStuff cold ÷ raw sharp: ${fmt(cold.rps / by("raw sharp, same encodes (no HTTP)").rps, 2)}×`,
  );
  console.log(
    `After restart ÷ cold: ${fmt(warm.rps / cold.rps, 1)}× with ${warm.transforms} transforms (target ≥ 10×, 0)`,
  );
  console.log(
    "\n| contender | AVIF browser TTFB p50 / p95 ms | WebP browser TTFB p50 / p95 ms | AVIF p95 ÷ WebP p95 |",
  );
  console.log("|---|---|---|---|");
  for (const r of results.filter((r) => r.ttfb)) {
    const { avif, webp } = r.ttfb!;
    console.log(
      `| ${r.contender} | ${fmt(avif.p50, 0)} / ${fmt(avif.p95, 0)} | ${fmt(webp.p50, 0)} / ${fmt(webp.p95, 0)} | ${fmt(avif.p95 / webp.p95, 2)} |`,
    );
  }
  if (secondPass && allWork) {
    console.log(
      `\nOptStuff cold: ${cold.interim} interim answers; the work after them took ${fmt(allWork.afterMs / 1000, 1)} s more (answers ${fmt(allWork.answeredMs / 1000, 1)} s), so ${fmt(cold.requests / ((allWork.answeredMs + allWork.afterMs) / 1000), 2)} img/s with it all done; second requests answered AVIF: ${secondPass.avif} of ${secondPass.of} (${fmt((100 * secondPass.avif) / Math.max(1, secondPass.of), 1)} %, target ≥ 95 %)`,
    );
    for (const line of secondPass.otherwise) console.log(`  not AVIF: ${line}`);
  }
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-srcset.json",
    JSON.stringify({ at: new Date().toISOString(), sources: COUNT, results, secondPass, allWork }, null, 2),
  );
}

await main();

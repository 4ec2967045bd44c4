/**
 * npm run bench:heic — what a HEIC source costs: libheif's WebAssembly decode into the still the
 * pipeline reads (heicAsStill), and the whole transform to a 1200 px WebP, per size. The committed
 * fixture (480²) always; with Debian's heif-enc on the PATH, also photographs of 3, 12 and 24 MP made
 * from the bench corpus's largest photo with grain, at heif-enc's q70 (the iPhone's 12 MP is the common case). Reports median and
 * p95 per image and names the worst, with the process's peak RSS. BENCH_SCALE multiplies the runs
 * (default 8). Results: a table on stdout and artifacts/bench-heic.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { heicAsStill } from "@/server/image/heic";
import { loadCorpus } from "./lib/corpus";
import { fmt, percentile } from "./lib/load";

const RUNS = Math.max(3, Math.round(8 * Number(process.env.BENCH_SCALE ?? 1)));
const limits = { ...DEFAULT_TRANSFORM_LIMITS, maxInputPixels: 40_000_000, timeoutMs: 60_000 };

async function encoded(megapixels: number, directory: string): Promise<Buffer | null> {
  const corpus = await loadCorpus();
  const largest = corpus.reduce((a, b) => (b.body.length > a.body.length ? b : a));
  const side = Math.round(Math.sqrt((megapixels * 1e6) / 0.75));
  const png = path.join(directory, `${megapixels}.png`);
  const size = { width: side, height: Math.round(side * 0.75) };
  // Sensor-like grain over the enlarged photograph: without it the HEVC stream is a few KiB (an
  // iPhone's 12 MP is 2–3 MB), and its decode costs less than a real photograph's.
  const grain = await sharp({
    create: { ...size, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 8 } },
  })
    .png()
    .toBuffer();
  await sharp(largest.body)
    .resize(size.width, size.height, { fit: "fill" })
    .removeAlpha()
    .composite([{ input: grain, blend: "soft-light" }])
    .png()
    .toFile(png);
  try {
    execFileSync("heif-enc", ["-q", "70", png, "-o", `${png}.heic`], { stdio: "ignore" });
    return readFileSync(`${png}.heic`);
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  configureSharp();
  const directory = mkdtempSync(path.join(os.tmpdir(), "bench-heic-"));
  const images: Array<{ name: string; body: Buffer }> = [
    { name: "fixture 480×480", body: readFileSync("tests/fixtures/heic/photo.heic") },
  ];
  for (const megapixels of [3, 12, 24]) {
    const body = await encoded(megapixels, directory);
    if (body) images.push({ name: `${megapixels} MP photograph`, body });
  }
  if (images.length === 1)
    console.log("heif-enc is not on the PATH: the fixture alone (apt-get install libheif-examples)");
  const ops = parseOperations("w_1200,f_webp");
  await heicAsStill(images[0]!.body, limits); // loads the WebAssembly once
  const rows = [];
  for (const { name, body } of images) {
    const decode: number[] = [];
    const whole: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      let start = performance.now();
      await heicAsStill(body, limits);
      decode.push(performance.now() - start);
      start = performance.now();
      await transformImage(body, ops, { accept: null }, limits);
      whole.push(performance.now() - start);
    }
    const { width, height } = await sharp(body).metadata();
    rows.push({
      name,
      size: `${width}×${height}`,
      kib: Math.round(body.length / 1024),
      decodeP50: percentile(decode, 50),
      decodeP95: percentile(decode, 95),
      wholeP50: percentile(whole, 50),
      rssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    });
  }
  console.log("| image | pixels | KiB | decode p50 ms | decode p95 ms | whole transform p50 ms | peak RSS so far MB |");
  console.log("|---|---|---|---|---|---|---|");
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.size} | ${row.kib} | ${fmt(row.decodeP50)} | ${fmt(row.decodeP95)} | ${fmt(row.wholeP50)} | ${row.rssMb} |`,
    );
  }
  const worst = rows.reduce((a, b) => (b.decodeP95 > a.decodeP95 ? b : a));
  console.log(`\nworst: ${worst.name}, decode p95 ${fmt(worst.decodeP95)} ms`);
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-heic.json", JSON.stringify({ runs: RUNS, rows, worst }, null, 2));
}

void main();

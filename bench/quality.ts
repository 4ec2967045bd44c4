/**
 * npm run bench:quality — the smallest image that looks right. A corpus of 24 photographs and 8 graphics
 * from Debian packages (bench/lib/corpus.ts), each at 800 px wide, from:
 *   - the Next.js optimizer with AVIF and WebP at its default quality (75),
 *   - ipx at its defaults (the source's format),
 *   - OptStuff served (`npm start`): WebP at fixed q_80, WebP at q_auto's four levels, and f_best (good),
 *     each from an AVIF-capable browser.
 * Every output is scored against the same 800 px rendering of its source with SSIMULACRA 2 (the
 * project's metric) and with SSIM (bench/lib/similarity.ts, a second, independent metric). Time to the
 * first byte is taken cold (first request) and warm (the same URL again); a cold q_auto or f_best URL
 * gets the format's default quality as an interim answer (the final one is followed and scored), which
 * the levels after the first find made already (the same variant). In process, on the same
 * pixels: the encodes each q_auto and f_best variant makes, the lowest fixed WebP quality at which every
 * image reaches each level (the issue's comparison) with what each image at its own lowest quality would
 * save (the most any per-image choice can), and f_best at Next's worst score.
 * BENCH_LEVELS (default best,good,eco,low) picks levels; results in artifacts/bench-quality.json and
 * docs/bench-quality.png (`-- --chart` draws the chart again from the JSON).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";
import { configureSharp } from "@/server/image/configure-sharp";
import { QUALITY_LEVELS, type QualityLevel } from "@/server/image/quality/levels";
import { encodeBest } from "@/server/image/quality/best-format";
import { encodeToTarget } from "@/server/image/quality/encode-to-target";
import { renderForScoring } from "@/server/image/quality/rendered-pixels";
import { ssimulacra2, type RawImage } from "@/server/image/quality/ssimulacra2";
import { loadCorpus, type CorpusImage } from "./lib/corpus";
import { fmt } from "./lib/load";
import { buildPeerIfNeeded, freePort, killAll, PEER_DIR, prepareOurApp, startProcess, stop } from "./lib/servers";
import { similarity } from "./lib/similarity";

const WIDTH = 800;
const AVIF_BROWSER = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8";
const LEVELS = (process.env.BENCH_LEVELS ?? "best,good,eco,low").split(",") as QualityLevel[];

interface Output {
  image: string;
  bytes: number;
  format: string;
  ssimulacra2: number;
  ssim: number;
  coldMs: number;
  warmMs: number;
}

interface Reference {
  raw: RawImage;
  png: Buffer;
}

/** The 800 px rendering every contender is scored against, with alpha kept where the source has it. */
async function reference(image: CorpusImage): Promise<Reference> {
  const pipeline = sharp(image.body).resize(WIDTH).toColourspace("srgb");
  const png = await pipeline.clone().png().toBuffer();
  return { raw: await asRaw(png, (await sharp(png).metadata()).hasAlpha ? 4 : 3), png };
}

async function asRaw(encoded: Buffer, channels: 3 | 4, size?: { width: number; height: number }): Promise<RawImage> {
  let image = sharp(encoded).toColourspace("srgb");
  if (size) image = image.resize({ ...size, fit: "fill" });
  const { data, info } = await (channels === 4 ? image.ensureAlpha() : image.removeAlpha())
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels };
}

async function score(ref: Reference, body: Buffer): Promise<{ ssimulacra2: number; ssim: number }> {
  const size = { width: ref.raw.width, height: ref.raw.height };
  const distorted = await asRaw(body, ref.raw.channels, size);
  const resized = await sharp(body)
    .resize({ ...size, fit: "fill" })
    .png()
    .toBuffer();
  return { ssimulacra2: ssimulacra2(ref.raw, distorted), ssim: (await similarity(ref.png, resized)).ssim };
}

/** GET with the browser's Accept: the time to the response's headers, and the body. */
async function timed(url: string): Promise<{ ms: number; body: Buffer; headers: Headers }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { accept: AVIF_BROWSER } });
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return { ms, body: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

/**
 * Cold, then warm. The final answer is the one scored: an interim answer (a WebP while the AVIF is
 * made) is followed until the final one is there; its time is the cold time, as a browser sees it.
 */
async function measure(url: string, image: string, ref: Reference, followInterim: boolean): Promise<Output> {
  const cold = await timed(url);
  let final = cold;
  const interim = (headers: Headers) => followInterim && !(headers.get("cache-control") ?? "").includes("immutable");
  for (let i = 0; i < 300 && interim(final.headers); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    final = await timed(url);
  }
  const warm = await timed(url);
  const format = (await sharp(final.body).metadata()).format ?? "?";
  return {
    image,
    bytes: final.body.length,
    format: format === "heif" ? "avif" : format,
    ...(await score(ref, final.body)),
    coldMs: cold.ms,
    warmMs: warm.ms,
  };
}

function startCorpusOrigin(corpus: CorpusImage[]): Promise<{ server: http.Server; host: string }> {
  const byName = new Map(corpus.map((image) => [image.name, image]));
  const server = http.createServer((req, res) => {
    const image = byName.get(decodeURIComponent((req.url ?? "").replace(/^\/c\//, "").replace(/\.\w+$/, "")));
    if (!image) return void res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": image.contentType, "Content-Length": image.body.length });
    res.end(req.method === "HEAD" ? undefined : image.body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

const sourcePath = (image: CorpusImage) => `c/${image.name}.${image.contentType === "image/png" ? "png" : "jpg"}`;

/** The lowest WebP quality at which this image reaches `target` (101: none up to 100 does). */
async function lowestReaching(image: CorpusImage, target: number): Promise<number> {
  const rendered = await renderForScoring(sharp(image.body).resize(WIDTH), DEFAULT_TRANSFORM_LIMITS);
  let low = 0;
  let high = 101;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    const encoded = await rendered.encodeLossy("webp", {}, mid, DEFAULT_TRANSFORM_LIMITS.timeoutMs);
    if ((await rendered.scoreOf(encoded)) >= target) high = mid;
    else low = mid;
  }
  return high;
}

/** The corpus's WebP bytes, each image at `quality(i)` (capped at 100). */
async function webpBytesAt(corpus: CorpusImage[], quality: (index: number) => number): Promise<number> {
  let total = 0;
  for (const [index, image] of corpus.entries()) {
    const rendered = await renderForScoring(sharp(image.body).resize(WIDTH), DEFAULT_TRANSFORM_LIMITS);
    total += (await rendered.encodeLossy("webp", {}, Math.min(100, quality(index)), 60_000)).data.length;
  }
  return total;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const kib = (bytes: number) => `${fmt(bytes / 1024, 0)} KiB`;

interface Row {
  contender: string;
  outputs: Output[];
  encodes?: number[];
}

function table(rows: Row[]): string {
  const lines = [
    "| contender | formats | total | median | SSIMULACRA 2 median / min | SSIM median / min | encodes mean / max | TTFB cold p50 / p95 | warm p50 |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { contender, outputs, encodes } of rows) {
    const formats = [...new Set(outputs.map((o) => o.format))].join("+");
    const s2 = outputs.map((o) => o.ssimulacra2);
    const ssim = outputs.map((o) => o.ssim);
    const cold = outputs.map((o) => o.coldMs).sort((a, b) => a - b);
    lines.push(
      `| ${contender} | ${formats} | ${kib(sum(outputs.map((o) => o.bytes)))} | ${kib(median(outputs.map((o) => o.bytes)))} | ${fmt(median(s2))} / ${fmt(Math.min(...s2))} | ${fmt(median(ssim), 4)} / ${fmt(Math.min(...ssim), 4)} | ${encodes ? `${fmt(sum(encodes) / encodes.length, 2)} / ${Math.max(...encodes)}` : "–"} | ${fmt(median(cold), 0)} / ${fmt(cold[Math.ceil(cold.length * 0.95) - 1]!, 0)} ms | ${fmt(median(outputs.map((o) => o.warmMs)), 0)} ms |`,
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  configureSharp();
  const started = performance.now();
  const corpus = await loadCorpus();
  const refs = new Map<string, Reference>();
  for (const image of corpus) refs.set(image.name, await reference(image));
  const origin = await startCorpusOrigin(corpus);
  const work = mkdtempSync(path.join(tmpdir(), "bench-quality-"));
  const rows: Row[] = [];
  const sequential = async (url: (image: CorpusImage) => Promise<string> | string, followInterim = false) => {
    const outputs: Output[] = [];
    for (const image of corpus)
      outputs.push(await measure(await url(image), image.name, refs.get(image.name)!, followInterim));
    return outputs;
  };

  try {
    // Next.js: AVIF and WebP at its defaults.
    buildPeerIfNeeded();
    const nextPort = await freePort();
    const next = await startProcess(
      ["node_modules/next/dist/bin/next", "start", PEER_DIR, "-H", "127.0.0.1", "-p", String(nextPort)],
      { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", BENCH_NEXT_IMAGES: "quality" },
      `http://127.0.0.1:${nextPort}/`,
    );
    rmSync(path.join(PEER_DIR, ".next/cache/images"), { recursive: true, force: true });
    const nextSrc = (image: CorpusImage) => encodeURIComponent(`http://${origin.host}/${sourcePath(image)}`);
    rows.push({
      contender: "Next.js (AVIF+WebP, q75)",
      outputs: await sequential(
        (image) => `http://127.0.0.1:${nextPort}/_next/image?url=${nextSrc(image)}&w=${WIDTH}&q=75`,
      ),
    });
    await stop(next);

    // ipx: its own defaults.
    const ipxPort = await freePort();
    const ipx = await startProcess(
      ["bench/peers/ipx-server.mjs", String(ipxPort), origin.host],
      process.env,
      `http://127.0.0.1:${ipxPort}/`,
    );
    rows.push({
      contender: "ipx (defaults)",
      outputs: await sequential(
        (image) => `http://127.0.0.1:${ipxPort}/w_${WIDTH}/http://${origin.host}/${sourcePath(image)}`,
      ),
    });
    await stop(ipx);

    // Ours, served as `npm start` runs it.
    const ours = await prepareOurApp(work, origin.host);
    const app = await ours.start();
    const variants: [string, string][] = [
      ["OptStuff f_webp,q_80", `w_${WIDTH},f_webp,q_80`],
      ...LEVELS.map((level): [string, string] => [
        `OptStuff f_webp,q_auto:${level}`,
        `w_${WIDTH},f_webp,q_auto:${level}`,
      ]),
      ["OptStuff f_best (q_auto:good)", `w_${WIDTH},f_best`],
    ];
    for (const [contender, operations] of variants) {
      rows.push({
        contender,
        outputs: await sequential(
          (image) => ours.signed(operations, `http://${origin.host}/${sourcePath(image)}`),
          true,
        ),
      });
    }
    await stop(app);

    // In process, on the same pixels: encodes per variant, and the fixed quality each level replaces.
    const fixedComparison: Record<string, unknown>[] = [];
    for (const level of LEVELS) {
      const encodes: number[] = [];
      for (const image of corpus) {
        const made = await encodeToTarget(
          { pixels: sharp(image.body).resize(WIDTH), format: "webp", level, ops: {} },
          DEFAULT_TRANSFORM_LIMITS,
        );
        encodes.push(made.encodes);
      }
      rows.find((row) => row.contender.endsWith(`q_auto:${level}`))!.encodes = encodes;
      const target = QUALITY_LEVELS[level];
      const lowest = await Promise.all(corpus.map((image) => lowestReaching(image, target)));
      const fixed = Math.max(...lowest);
      const fixedBytes = await webpBytesAt(corpus, () => fixed);
      // The most any per-image choice can save: each image at its own lowest quality that reaches.
      const idealBytes = await webpBytesAt(corpus, (index) => lowest[index]!);
      const auto = rows.find((row) => row.contender.endsWith(`q_auto:${level}`))!.outputs;
      const autoBytes = sum(auto.map((o) => o.bytes));
      const withinPoint = auto.filter((o) => Math.abs(o.ssimulacra2 - target) <= 1).length;
      fixedComparison.push({
        level,
        target,
        fixed,
        fixedBytes,
        autoBytes,
        saved: 1 - autoBytes / fixedBytes,
        idealBytes,
        idealSaved: 1 - idealBytes / fixedBytes,
        withinPoint,
      });
    }
    const bestEncodes: number[] = [];
    for (const image of corpus) {
      const made = await encodeBest(
        { pixels: sharp(image.body).resize(WIDTH), primary: "avif", accepts: "avif", level: "good", ops: {} },
        DEFAULT_TRANSFORM_LIMITS,
      );
      bestEncodes.push(made.encodes);
    }
    rows.find((row) => row.contender.startsWith("OptStuff f_best"))!.encodes = bestEncodes;

    // f_best held at Next's worst score: the issue's byte comparison, and SSIM's view of it.
    const nextRow = rows[0]!.outputs;
    const nextWorst = Math.min(...nextRow.map((o) => o.ssimulacra2));
    const atNext: Output[] = [];
    const atNextEncodes: number[] = [];
    for (const image of corpus) {
      const made = await encodeBest(
        {
          pixels: sharp(image.body).resize(WIDTH),
          primary: "avif",
          accepts: "avif",
          level: "good",
          target: nextWorst,
          ops: {},
        },
        DEFAULT_TRANSFORM_LIMITS,
      );
      atNextEncodes.push(made.encodes);
      const scored = await score(refs.get(image.name)!, made.encoded.data);
      atNext.push({
        image: image.name,
        bytes: made.encoded.data.length,
        format: made.format,
        ...scored,
        coldMs: NaN,
        warmMs: NaN,
      });
    }
    rows.push({
      contender: `OptStuff f_best at Next's worst score (${fmt(nextWorst)}), in process`,
      outputs: atNext,
      encodes: atNextEncodes,
    });

    const report = [
      `bench:quality — ${corpus.filter((i) => i.kind === "photo").length} photographs and ${corpus.filter((i) => i.kind === "graphic").length} graphics at ${WIDTH} px, scored against sharp's ${WIDTH} px rendering of each source`,
      "",
      table(rows),
      "",
      "| level | target | lowest fixed WebP quality where every image reaches it | its total | q_auto total | q_auto saves | each image at its own lowest: total, saves | images within 1 point |",
      "|---|---|---|---|---|---|---|---|",
      ...fixedComparison.map(
        (c) =>
          `| ${c.level} | ${c.target} | ${(c.fixed as number) > 100 ? "none (100 misses)" : `q${c.fixed}`} | ${kib(c.fixedBytes as number)} | ${kib(c.autoBytes as number)} | ${fmt(100 * (c.saved as number))} % | ${kib(c.idealBytes as number)}, ${fmt(100 * (c.idealSaved as number))} % | ${c.withinPoint} / ${corpus.length} |`,
      ),
      "",
      `f_best at Next's worst SSIMULACRA 2 (${fmt(nextWorst)}): ${kib(sum(atNext.map((o) => o.bytes)))} against Next's ${kib(sum(nextRow.map((o) => o.bytes)))} (${fmt(100 * (1 - sum(atNext.map((o) => o.bytes)) / sum(nextRow.map((o) => o.bytes))))} % fewer bytes); worst SSIM ${fmt(Math.min(...atNext.map((o) => o.ssim)), 4)} against Next's ${fmt(Math.min(...nextRow.map((o) => o.ssim)), 4)}`,
      `wall time ${fmt((performance.now() - started) / 1000, 0)} s`,
    ].join("\n");
    console.log(report);
    mkdirSync("artifacts", { recursive: true });
    writeFileSync("artifacts/bench-quality.json", JSON.stringify({ rows, fixedComparison, nextWorst }, null, 2));
    writeFileSync("artifacts/bench-quality.md", `${report}\n`);
    await sharp(Buffer.from(chart(rows)), { density: 144 })
      .png()
      .toFile("docs/bench-quality.png");
  } finally {
    origin.server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Total bytes per contender (bars) with the worst SSIMULACRA 2 each left on the corpus (labels). */
function chart(rows: Row[]): string {
  const W = 900;
  const barH = 26;
  const left = 420;
  const H = 70 + rows.length * (barH + 10);
  const max = Math.max(...rows.map((r) => sum(r.outputs.map((o) => o.bytes))));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="20" y="30" font-size="16">bench:quality — total bytes for the corpus at 800 px (label: worst SSIMULACRA 2)</text>`,
  ];
  rows.forEach((row, i) => {
    const total = sum(row.outputs.map((o) => o.bytes));
    const y = 50 + i * (barH + 10);
    const width = ((W - left - 150) * total) / max;
    const colour = row.contender.startsWith("OptStuff")
      ? "#0072B2"
      : row.contender.startsWith("Next")
        ? "#D55E00"
        : "#009E73";
    parts.push(
      `<text x="${left - 10}" y="${y + 18}" font-size="13" text-anchor="end">${row.contender.replace(/&/g, "&amp;")}</text>`,
      `<rect x="${left}" y="${y}" width="${width}" height="${barH}" fill="${colour}"/>`,
      `<text x="${left + width + 8}" y="${y + 18}" font-size="13">${kib(total)} · ${fmt(Math.min(...row.outputs.map((o) => o.ssimulacra2)))}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("");
}

/** `--chart`: draws docs/bench-quality.png again from the last run's artifacts/bench-quality.json. */
async function redraw(): Promise<void> {
  const { rows } = JSON.parse(readFileSync("artifacts/bench-quality.json", "utf8")) as { rows: Row[] };
  await sharp(Buffer.from(chart(rows)), { density: 144 })
    .png()
    .toFile("docs/bench-quality.png");
}

(process.argv.includes("--chart") ? redraw() : main()).catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exitCode = 1;
});

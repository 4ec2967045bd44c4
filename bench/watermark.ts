/**
 * npm run bench:watermark — what `wm` costs: a 12 MP JPEG → 800 px WebP q80 (the bench:image job),
 * with and without the project's watermark (a 400×120 PNG logo with alpha, scaled to a fifth of the
 * output's width at 0.6 opacity), in this process through the pipeline the transform processes run.
 * Alternating runs, one at a time then two at once (both cores), so the two paths see the same machine.
 * Reports wall and CPU ms per image, the output bytes, and the watermark's share. BENCH_SCALE
 * multiplies the runs (default 30 each). Results: a table on stdout and artifacts/bench-watermark.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import sharp from "sharp";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations, type ImageOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { drive, fmt, percentile } from "./lib/load";
import { makeSources } from "./lib/sources";

const RUNS = Math.max(6, Math.round(30 * Number(process.env.BENCH_SCALE ?? 1)));
const BASE = parseOperations("w_800,q_80,f_webp");
const MARKED: ImageOperations = {
  ...BASE,
  watermark: { opacity: 0.6, gravity: "southeast", x: 16, y: 16, scale: 0.2, sha256: "bench" },
};

interface Row {
  path: string;
  concurrency: number;
  p50: number;
  p95: number;
  cpuMs: number;
  bytes: number;
}

async function main(): Promise<void> {
  configureSharp();
  const jpeg = (await makeSources()).find((s) => s.kind === "jpeg")!;
  const logo = await sharp({
    create: { width: 400, height: 120, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0.9 } },
  })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><text x="20" y="90" font-size="80">OptStuff</text></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const run = (ops: ImageOperations) =>
    transformImage(
      jpeg.body,
      ops,
      { accept: null, watermark: ops.watermark ? logo : undefined },
      DEFAULT_TRANSFORM_LIMITS,
    );
  for (const ops of [BASE, MARKED, BASE, MARKED]) await run(ops); // warm-up: sharp loaded, caches primed

  const rows: Row[] = [];
  for (const concurrency of [1, 2]) {
    const samples = { plain: [] as number[], wm: [] as number[] };
    const cpu = { plain: 0, wm: 0 };
    const bytes = { plain: 0, wm: 0 };
    // Alternate, so a slow stretch of the machine falls on both paths alike.
    await drive(RUNS * 2, concurrency, async (i) => {
      const path = i % 2 === 0 ? "plain" : "wm";
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const result = await run(path === "plain" ? BASE : MARKED);
      samples[path].push(performance.now() - started);
      const used = process.cpuUsage(cpuBefore);
      // At concurrency 2 the process's CPU includes the other job's; halving spreads it evenly.
      cpu[path] += (used.user + used.system) / 1000 / concurrency;
      bytes[path] = result.body.length;
    });
    for (const path of ["plain", "wm"] as const) {
      rows.push({
        path: path === "plain" ? "w_800,q_80,f_webp" : "… + wm",
        concurrency,
        p50: percentile(samples[path], 50),
        p95: percentile(samples[path], 95),
        cpuMs: cpu[path] / RUNS,
        bytes: bytes[path],
      });
    }
  }

  console.log(`\n${jpeg.description} → 800 px WebP q80, ${RUNS} runs per path and concurrency, in process:\n`);
  console.log("| operations | concurrency | p50 ms | p95 ms | CPU ms/image | output bytes | watermark's extra CPU |");
  console.log("|---|---|---|---|---|---|---|");
  for (const row of rows) {
    const plain = rows.find((r) => r.concurrency === row.concurrency && r.path !== "… + wm")!;
    const extra =
      row === plain
        ? ""
        : `+${fmt(row.cpuMs - plain.cpuMs)} ms (${fmt(((row.cpuMs - plain.cpuMs) / plain.cpuMs) * 100)} %)`;
    console.log(
      `| ${row.path} | ${row.concurrency} | ${fmt(row.p50)} | ${fmt(row.p95)} | ${fmt(row.cpuMs)} | ${row.bytes} | ${extra} |`,
    );
  }
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-watermark.json",
    JSON.stringify({ date: new Date().toISOString(), node: process.version, runs: RUNS, rows }, null, 2),
  );
  console.log("\nartifacts/bench-watermark.json");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

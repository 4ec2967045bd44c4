/**
 * npm run bench:palette — what `info`'s palette costs: the median cut over the 100 px RGBA copy
 * describeImage already makes, per image of bench:quality's corpus (24 photographs, 8 graphics) and
 * bench:image's generated sources, against the whole `info` answer for the same image. Target: ≤ 10 ms
 * an image. Reports the median and p95 per image and names the worst. BENCH_SCALE multiplies the runs
 * (default 40 each). Results: a table on stdout and artifacts/bench-palette.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import sharp from "sharp";
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image";
import { describeImage } from "@/server/image/describe-image";
import { configureSharp } from "@/server/image/engine";
import { paletteOf } from "@/server/image/palette";
import { loadCorpus } from "./lib/corpus";
import { fmt, percentile } from "./lib/load";
import { makeSources } from "./lib/sources";

const RUNS = Math.max(5, Math.round(40 * Number(process.env.BENCH_SCALE ?? 1)));
const TARGET_MS = 10;

interface Row {
  name: string;
  colours: number;
  paletteP50: number;
  paletteP95: number;
  infoP50: number;
}

async function main(): Promise<void> {
  configureSharp();
  const images = [
    ...(await loadCorpus()).map(({ name, body }) => ({ name, body })),
    ...(await makeSources()).map(({ kind, body }) => ({ name: `generated ${kind}`, body })),
  ];
  // The copies describeImage quantizes: first frame, ≤ 100 px, RGBA.
  const copies = await Promise.all(
    images.map(({ body }) =>
      sharp(body, { pages: 1 }).resize(100, 100, { fit: "inside" }).ensureAlpha().raw().toBuffer(),
    ),
  );
  for (const copy of copies) paletteOf(copy); // warm-up: the first image should not pay for the JIT
  await describeImage(images[0]!.body, DEFAULT_TRANSFORM_LIMITS);
  const rows: Row[] = [];
  for (const [index, { name, body }] of images.entries()) {
    const copy = copies[index]!;
    const palette: number[] = [];
    let colours = 0;
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      colours = paletteOf(copy).length;
      palette.push(performance.now() - start);
    }
    const info: number[] = [];
    for (let run = 0; run < Math.ceil(RUNS / 8); run++) {
      const start = performance.now();
      await describeImage(body, DEFAULT_TRANSFORM_LIMITS);
      info.push(performance.now() - start);
    }
    rows.push({
      name,
      colours,
      paletteP50: percentile(palette, 50),
      paletteP95: percentile(palette, 95),
      infoP50: percentile(info, 50),
    });
  }
  console.log(`| image | colours | palette p50 ms | palette p95 ms | whole info p50 ms |`);
  console.log(`|---|---|---|---|---|`);
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.colours} | ${fmt(row.paletteP50, 2)} | ${fmt(row.paletteP95, 2)} | ${fmt(row.infoP50)} |`,
    );
  }
  const worst = rows.reduce((a, b) => (b.paletteP95 > a.paletteP95 ? b : a));
  const verdict = worst.paletteP95 <= TARGET_MS ? "within" : "over";
  console.log(
    `\nworst: ${worst.name}, palette p95 ${fmt(worst.paletteP95, 2)} ms (${verdict} the ${TARGET_MS} ms target); ` +
      `median over images ${fmt(
        percentile(
          rows.map((row) => row.paletteP50),
          50,
        ),
        2,
      )} ms`,
  );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-palette.json",
    JSON.stringify({ runs: RUNS, targetMs: TARGET_MS, rows, worst }, null, 2),
  );
}

void main();

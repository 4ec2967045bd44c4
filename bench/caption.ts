/**
 * npm run bench:caption — what txt_ costs: the caption's layout and drawing (captionOverlay) per kind of
 * caption, from a credit line to the worst the URL allows (200 characters at 256 px × dpr 4, stacked
 * marks, a glyph wider than the output), and the whole transform of a 1200×800 JPEG with and without
 * the caption. No target in the issue; we hold a caption to 50 ms. Reports the median and p95 per case
 * and names the worst. BENCH_SCALE multiplies the runs (default 30 each). Results: a table on stdout
 * and artifacts/bench-caption.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import sharp from "sharp";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { captionOverlay } from "@/server/image/caption";
import { configureSharp, transformImage } from "@/server/image/engine";
import { TEXT_DEFAULTS } from "@/server/image/operations/text-tokens";
import type { TextStyle } from "@/server/image/types";
import { fmt, percentile } from "./lib/load";

const RUNS = Math.max(5, Math.round(30 * Number(process.env.BENCH_SCALE ?? 1)));
const TARGET_MS = 50;
const SENTENCE = "A caption of a sentence or two, long enough to wrap on most outputs and to be read at a glance.";

interface Case {
  name: string;
  text: string;
  style?: Partial<TextStyle>;
  output: { width: number; height: number };
  dpr?: number;
}

const cases: Case[] = [
  { name: "credit line", text: "© Jane Doe 2026", style: { size: 24 }, output: { width: 1200, height: 800 } },
  {
    name: "price in a box",
    text: "€ 12,99",
    style: { size: 64, box: { r: 0, g: 0, b: 0, alpha: 0.6 } },
    output: { width: 1200, height: 800 },
  },
  { name: "sentence, wrapped", text: SENTENCE, output: { width: 800, height: 600 } },
  {
    name: "Arabic, 200 characters",
    text: "مرحبا بالعالم ".repeat(15).slice(0, 200),
    output: { width: 1200, height: 800 },
  },
  { name: "Hebrew and Latin mixed", text: "שלום world 123 עולם ".repeat(10), output: { width: 1200, height: 800 } },
  { name: "stacked marks", text: `a${"\u0301".repeat(199)}`, output: { width: 1200, height: 800 } },
  {
    name: "200 characters at 256 px × dpr 4 (fitted)",
    text: "x".repeat(200),
    style: { size: 256 },
    output: { width: 1600, height: 1200 },
    dpr: 4,
  },
  {
    name: "100 lines at 256 px (fitted)",
    text: Array.from({ length: 100 }, () => "W").join("\n"),
    style: { size: 256 },
    output: { width: 1200, height: 800 },
  },
  {
    name: "glyphs wider than a 4 px output",
    text: "W".repeat(80),
    style: { size: 256 },
    output: { width: 4, height: 300 },
    dpr: 4,
  },
  {
    name: "sentence on 4000×3000 (previewed)",
    text: SENTENCE,
    style: { size: 48 },
    output: { width: 4000, height: 3000 },
  },
];

interface Row {
  name: string;
  drawn: string;
  p50: number;
  p95: number;
}

async function timed(runs: number, run: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times;
}

async function main(): Promise<void> {
  configureSharp();
  const draw = ({ text, style, output, dpr }: Case) =>
    captionOverlay(text, { ...TEXT_DEFAULTS, ...style }, dpr ?? 1, output);
  await draw(cases[0]!); // warm-up: fontconfig reads its cache on the first layout
  const rows: Row[] = [];
  for (const item of cases) {
    const overlay = await draw(item);
    const times = await timed(RUNS, () => draw(item));
    rows.push({
      name: item.name,
      drawn: `${overlay.width}×${overlay.height}`,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
    });
  }
  const photo = await sharp({ create: { width: 2400, height: 1600, channels: 3, background: "#36c" } })
    .composite([
      { input: Buffer.from(`<svg width="2400" height="1600"><circle cx="1200" cy="800" r="600" fill="#fc3"/></svg>`) },
    ])
    .jpeg()
    .toBuffer();
  const caption = `txt_${Buffer.from("© Jane Doe 2026").toString("base64url")}`;
  const whole: Record<string, number> = {};
  for (const segment of ["w_1200,f_webp", `w_1200,f_webp,${caption}`]) {
    const ops = parseOperations(segment);
    await transformImage(photo, ops, { accept: null }, DEFAULT_TRANSFORM_LIMITS);
    whole[segment] = percentile(
      await timed(RUNS, () => transformImage(photo, ops, { accept: null }, DEFAULT_TRANSFORM_LIMITS)),
      50,
    );
  }

  console.log("| caption | drawn px | p50 ms | p95 ms |");
  console.log("|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.name} | ${row.drawn} | ${fmt(row.p50, 2)} | ${fmt(row.p95, 2)} |`);
  const worst = rows.reduce((a, b) => (b.p95 > a.p95 ? b : a));
  const [plain, captioned] = Object.values(whole) as [number, number];
  console.log(
    `\nworst: ${worst.name}, p95 ${fmt(worst.p95, 2)} ms (${worst.p95 <= TARGET_MS ? "within" : "over"} the ${TARGET_MS} ms target)` +
      `\nwhole transform, 2400×1600 JPEG → w_1200 WebP: ${fmt(plain)} ms plain, ${fmt(captioned)} ms with a credit line (+${fmt(captioned - plain)} ms)`,
  );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-caption.json",
    JSON.stringify({ runs: RUNS, targetMs: TARGET_MS, rows, worst, whole }, null, 2),
  );
}

void main();

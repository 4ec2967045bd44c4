/**
 * npm run bench:quality-regret — q_auto and f_best one image at a time. For each image of
 * bench:quality's corpus at 800 px, and the demo photo at 640–1200 px (what a new user tries first),
 * per level: the answer's bytes ÷ the smallest encode that reaches the level in a format the answer may
 * take (q_auto: its own, WebP and AVIF; f_best for an AVIF-capable browser: AVIF or WebP). The smallest
 * is found on the same rendered pixels by bisecting each format's 1–100 scale, then trying the two
 * qualities below the crossing (scores are not quite monotonic). A level no quality reaches reports
 * the answer's bytes ÷ the format's default quality's (target ≤ 1.5). Reports the worst image per
 * mode and level by name, the encodes and the time each answer took (in process, one at a time).
 * BENCH_LEVELS (default best,good,eco,low) and BENCH_REGRET_KINDS (default photo,graphic) narrow it;
 * results in artifacts/bench-quality-regret.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import sharp from "sharp";
import { configureSharp } from "@/server/image/configure-sharp";
import { DEFAULT_QUALITY } from "@/server/image/encode-options";
import type { MeasuredQuality } from "@/server/image/types";
import { encodeBest } from "@/server/image/quality/best-format";
import { encodeToTarget } from "@/server/image/quality/encode-to-target";
import { QUALITY_LEVELS, type QualityLevel } from "@/server/image/quality/levels";
import { renderForScoring, type RenderedPixels } from "@/server/image/quality/rendered-pixels";
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";
import { loadCorpus } from "./lib/corpus";
import { fmt } from "./lib/load";

type Format = "webp" | "avif";
const LEVELS = (process.env.BENCH_LEVELS ?? "best,good,eco,low").split(",") as QualityLevel[];
const KINDS = (process.env.BENCH_REGRET_KINDS ?? "photo,graphic").split(",");
const DEMO_WIDTHS = [640, 700, 800, 900, 1000, 1200];
const MODES = [
  { mode: "q_auto webp", formats: ["webp"] as Format[] },
  { mode: "q_auto avif", formats: ["avif"] as Format[] },
  { mode: "f_best", formats: ["avif", "webp"] as Format[] },
];

interface Item {
  name: string;
  body: Buffer;
  width: number;
}

interface Measured {
  image: string;
  mode: string;
  level: QualityLevel;
  format: string;
  bytes: number;
  measured?: MeasuredQuality;
  encodes: number;
  ms: number;
  /** The smallest encode reaching the level, per allowed format (null: none does). */
  smallest: Record<string, { quality: number; bytes: number } | null>;
  regret: number | null;
  /** Out of reach everywhere: bytes ÷ the answer format's default quality's. */
  overDefault: number | null;
}

async function scoredAt(pixels: RenderedPixels, format: Format, quality: number) {
  const encoded = await pixels.encodeLossy(format, {}, quality, 60_000);
  return { quality, bytes: encoded.data.length, score: await pixels.scoreOf(encoded) };
}

async function smallestReaching(pixels: RenderedPixels, format: Format, target: number) {
  const memo = new Map<number, Promise<{ quality: number; bytes: number; score: number }>>();
  const at = (quality: number) => {
    if (!memo.has(quality)) memo.set(quality, scoredAt(pixels, format, quality));
    return memo.get(quality)!;
  };
  if ((await at(100)).score < target) return null;
  let [low, high] = [0, 100];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if ((await at(middle)).score >= target) high = middle;
    else low = middle;
  }
  const candidates = [];
  for (let quality = Math.max(1, high - 2); quality <= high; quality++) candidates.push(await at(quality));
  const reaching = candidates.filter((c) => c.score >= target);
  return reaching.reduce((best, next) => (next.bytes < best.bytes ? next : best));
}

async function answer(item: Item, mode: string, level: QualityLevel) {
  const pixels = sharp(item.body).resize(item.width);
  const started = performance.now();
  if (mode === "f_best") {
    const best = await encodeBest(
      { pixels, primary: "avif", accepts: "avif", level, ops: {} },
      DEFAULT_TRANSFORM_LIMITS,
    );
    return { ...best, bytes: best.encoded.data.length, ms: performance.now() - started };
  }
  const format = mode.endsWith("avif") ? "avif" : "webp";
  const made = await encodeToTarget({ pixels, format, level, ops: {} }, DEFAULT_TRANSFORM_LIMITS);
  return { ...made, format, bytes: made.encoded.data.length, ms: performance.now() - started };
}

async function main(): Promise<void> {
  configureSharp();
  const started = performance.now();
  const corpus = (await loadCorpus()).filter((image) => KINDS.includes(image.kind));
  const demo = readFileSync("demo/photo.jpg");
  const items: Item[] = [
    ...DEMO_WIDTHS.map((width) => ({ name: `demo photo @${width}`, body: demo, width })),
    ...corpus.map((image) => ({ name: image.name, body: image.body, width: 800 })),
  ];
  const results: Measured[] = [];
  for (const item of items) {
    const pixels = await renderForScoring(sharp(item.body).resize(item.width), DEFAULT_TRANSFORM_LIMITS);
    for (const level of LEVELS) {
      const target = QUALITY_LEVELS[level];
      const smallest: Record<string, { quality: number; bytes: number } | null> = {};
      for (const format of ["webp", "avif"] as Format[])
        smallest[format] = await smallestReaching(pixels, format, target);
      for (const { mode, formats } of MODES) {
        const made = await answer(item, mode, level);
        const reaching = formats.flatMap((f) => (smallest[f] ? [smallest[f]!.bytes] : []));
        const ownDefault = async () =>
          made.bytes / (await scoredAt(pixels, made.format as Format, DEFAULT_QUALITY[made.format as Format])).bytes;
        results.push({
          image: item.name,
          mode,
          level,
          format: made.format,
          bytes: made.bytes,
          ...(made.measured ? { measured: made.measured } : {}),
          encodes: made.encodes,
          ms: made.ms,
          smallest: Object.fromEntries(formats.map((f) => [f, smallest[f] ?? null])),
          regret: reaching.length > 0 ? made.bytes / Math.min(...reaching) : null,
          overDefault: reaching.length === 0 ? await ownDefault() : null,
        });
      }
    }
    console.error(`${item.name}: ${fmt((performance.now() - started) / 1000, 0)} s`);
  }
  console.log(report(results, items.length));
  console.log(`\nwall time ${fmt((performance.now() - started) / 1000, 0)} s`);
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-quality-regret.json", JSON.stringify(results, null, 2));
}

function report(results: Measured[], images: number): string {
  const lines = [
    `bench:quality-regret — ${images} images (the demo photo at ${DEMO_WIDTHS.join(", ")} px, the corpus at 800 px), in process`,
    "",
    "| mode | level | regret median / worst (image) | images over 1.10 | out of reach: images, worst bytes ÷ default | short of the level | encodes mean / max | time mean / max (image) |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const { mode } of MODES)
    for (const level of LEVELS) {
      const rows = results.filter((r) => r.mode === mode && r.level === level);
      const regrets = rows.filter((r) => r.regret !== null).sort((a, b) => a.regret! - b.regret!);
      const worst = regrets.at(-1);
      const unreached = rows.filter((r) => r.overDefault !== null);
      const worstOver = unreached.reduce((m, r) => Math.max(m, r.overDefault!), 0);
      // Reachable in an allowed format, yet answered under the target.
      const short = regrets.filter((r) => (r.measured?.score ?? 100) < QUALITY_LEVELS[level]).length;
      const slowest = rows.reduce((m, r) => (r.ms > m.ms ? r : m));
      lines.push(
        `| ${mode} | ${level} | ${worst ? `${fmt(regrets[Math.floor((regrets.length - 1) / 2)]!.regret!, 2)} / ${fmt(worst.regret!, 2)} (${worst.image}: ${worst.format} q${worst.measured?.quality} ${worst.bytes} B)` : "–"} | ${regrets.filter((r) => r.regret! > 1.1).length} of ${regrets.length} | ${unreached.length}${unreached.length ? `, ${fmt(worstOver, 2)}` : ""} | ${short} | ${fmt(rows.reduce((s, r) => s + r.encodes, 0) / rows.length, 2)} / ${Math.max(...rows.map((r) => r.encodes))} | ${fmt(rows.reduce((s, r) => s + r.ms, 0) / rows.length / 1000, 2)} / ${fmt(slowest.ms / 1000, 2)} s (${slowest.image}) |`,
      );
    }
  return lines.join("\n");
}

await main();

/**
 * npm run bench:quality-curves — how SSIMULACRA 2 answers each encoder quality on bench:quality's corpus
 * (bench/lib/corpus.ts), and what q_auto's search makes of it. For every image at 800 px wide, the score
 * and bytes of WebP, JPEG and AVIF at each quality of a grid, made and scored exactly as q_auto makes
 * and scores them (rendered-pixels.ts). From those curves, per format and level:
 *   - the lowest quality at which each image reaches the level (their median: where a search should start),
 *   - the score one quality step buys around it (the median: the search's first slope),
 *   - how many images any quality of the grid puts within 1 point above the target (the most a search
 *     can put there: scores move in steps, and one step often jumps more than a point),
 *   - the real search (searchQuality) run on the curves, with the current table and with one built from
 *     the medians: encodes per image and images within 1 point.
 * The curves go to artifacts/quality-curves.json; `-- --simulate` reads them back instead of encoding;
 * `-- --optimise` also searches for the table that needs the fewest encodes without losing the
 * current one's precision or bytes.
 * BENCH_CURVE_KINDS (default photo) picks the corpus's photos, graphics or both (photo,graphic).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import sharp from "sharp";
import { configureSharp } from "@/server/image/configure-sharp";
import {
  MAX_ENCODES,
  SCORE_TOLERANCE,
  SEARCH,
  searchQuality,
  type FormatSearch,
  type SearchedFormat,
} from "@/server/image/quality/auto-quality";
import { QUALITY_LEVELS, type QualityLevel } from "@/server/image/quality/levels";
import { renderForScoring } from "@/server/image/quality/rendered-pixels";
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";
import { loadCorpus } from "./lib/corpus";
import { fmt } from "./lib/load";

const WIDTH = 800;
const OUT = "artifacts/quality-curves.json";
/** Every quality for WebP (the benchmark's q_auto format); every second one for the slower two. */
const GRIDS: Record<SearchedFormat, number[]> = {
  webp: range(20, 100, 1),
  jpeg: range(20, 100, 2),
  avif: range(15, 95, 2),
};
const LEVELS = Object.keys(QUALITY_LEVELS) as QualityLevel[];
const FORMATS = Object.keys(GRIDS) as SearchedFormat[];

type Point = { quality: number; score: number; bytes: number };
type Curves = Array<{ image: string; kind: string; curves: Record<SearchedFormat, Point[]> }>;

function range(from: number, to: number, step: number): number[] {
  return Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);
}

async function measure(): Promise<Curves> {
  configureSharp();
  const kinds = (process.env.BENCH_CURVE_KINDS ?? "photo").split(",");
  const corpus = (await loadCorpus()).filter((image) => kinds.includes(image.kind));
  const curves: Curves = [];
  for (const image of corpus) {
    const started = performance.now();
    const rendered = await renderForScoring(sharp(image.body).resize(WIDTH), DEFAULT_TRANSFORM_LIMITS);
    const byFormat = {} as Record<SearchedFormat, Point[]>;
    for (const format of FORMATS) {
      byFormat[format] = [];
      for (const quality of GRIDS[format]) {
        const encoded = await rendered.encodeLossy(format, {}, quality, 60_000);
        byFormat[format].push({ quality, score: await rendered.scoreOf(encoded), bytes: encoded.data.length });
      }
    }
    curves.push({ image: image.name, kind: image.kind, curves: byFormat });
    console.error(`${image.name}: ${fmt((performance.now() - started) / 1000, 1)} s`);
  }
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(OUT, JSON.stringify(curves));
  return curves;
}

/** Score and bytes at any quality: the grid's, or between its two neighbours. */
function at(curve: Point[], quality: number): Point {
  const exact = curve.find((p) => p.quality === quality);
  if (exact) return exact;
  const above = curve.find((p) => p.quality > quality) ?? curve.at(-1)!;
  const below = [...curve].reverse().find((p) => p.quality < quality) ?? curve[0]!;
  if (above === below) return { ...above, quality };
  const share = (quality - below.quality) / (above.quality - below.quality);
  return {
    quality,
    score: below.score + share * (above.score - below.score),
    bytes: Math.round(below.bytes + share * (above.bytes - below.bytes)),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** The lowest grid quality reaching the target, or null when none does. */
const lowestReaching = (curve: Point[], target: number) => curve.find((p) => p.score >= target) ?? null;

/** Score per quality step around the crossing: between the grid points either side of it. */
function slopeAround(curve: Point[], target: number): number | null {
  const index = curve.findIndex((p) => p.score >= target);
  if (index <= 0) return null;
  const [a, b] = [curve[Math.max(0, index - 2)]!, curve[Math.min(curve.length - 1, index + 1)]!];
  return b.quality > a.quality ? (b.score - a.score) / (b.quality - a.quality) : null;
}

async function simulate(curve: Point[], format: SearchedFormat, level: QualityLevel, table: FormatSearch) {
  const searched = await searchQuality({
    format,
    level,
    table,
    budgetMs: 1e9,
    encodeAt: async (quality) => {
      const point = at(curve, quality);
      return { data: Buffer.alloc(point.bytes), info: { quality: point.score } as never };
    },
    scoreOf: async (encoded) => (encoded.info as unknown as { quality: number }).quality,
  });
  return searched;
}

async function report(curves: Curves): Promise<void> {
  const proposed: Partial<Record<SearchedFormat, FormatSearch>> = {};
  const results: unknown[] = [];
  console.log(
    "| format | level | ideal quality median (min–max) | none reaches | slope median | reachable within 1 | search now: within 1 / encodes mean / max / bytes over ideal | table from medians: the same |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const format of FORMATS) {
    const starts = {} as Record<QualityLevel, number>;
    const slopes: number[] = [];
    for (const level of LEVELS) {
      const target = QUALITY_LEVELS[level];
      const ideals = curves.map((c) => lowestReaching(c.curves[format], target));
      const qualities = ideals.flatMap((p) => (p ? [p.quality] : []));
      starts[level] = Math.round(median(qualities));
      for (const c of curves) {
        const slope = slopeAround(c.curves[format], target);
        if (slope !== null && slope > 0) slopes.push(slope);
      }
      const reachable = ideals.filter((p) => p && p.score < target + SCORE_TOLERANCE).length;
      const ideal = ideals.reduce((sum, p) => sum + (p?.bytes ?? 0), 0);
      results.push({ format, level, ideal: qualities, reachable });
      console.log(
        `| ${format} | ${level} | ${median(qualities)} (${Math.min(...qualities)}–${Math.max(...qualities)}) | ${ideals.length - qualities.length} | ${fmt(median(slopes), 2)} | ${reachable} of ${curves.length} | ${await searchSummary(curves, format, level, SEARCH[format], ideal)} | … |`,
      );
    }
    proposed[format] = { ...SEARCH[format], slope: Number(median(slopes).toFixed(2)), start: starts };
  }
  console.log("\nFrom the medians:");
  console.log("| format | level | search: within 1 / encodes mean / max / bytes over ideal |");
  console.log("|---|---|---|");
  for (const format of FORMATS) {
    for (const level of LEVELS) {
      const target = QUALITY_LEVELS[level];
      const ideal = curves.reduce((sum, c) => sum + (lowestReaching(c.curves[format], target)?.bytes ?? 0), 0);
      console.log(`| ${format} | ${level} | ${await searchSummary(curves, format, level, proposed[format]!, ideal)} |`);
    }
  }
  console.log(`\nProposed table:\n${JSON.stringify(proposed, null, 2)}`);
  writeFileSync("artifacts/quality-curves-report.json", JSON.stringify({ results, proposed }, null, 2));
}

async function searchSummary(
  curves: Curves,
  format: SearchedFormat,
  level: QualityLevel,
  table: FormatSearch,
  idealBytes: number,
): Promise<string> {
  const target = QUALITY_LEVELS[level];
  let within = 0;
  let bytes = 0;
  const encodes: number[] = [];
  for (const c of curves) {
    const searched = await simulate(c.curves[format], format, level, table);
    if (searched.score >= target && searched.score < target + SCORE_TOLERANCE) within++;
    // Images no quality brings to the level count at what the search served, as in the ideal sum's absence.
    if (lowestReaching(c.curves[format], target)) bytes += searched.encoded.data.length;
    encodes.push(searched.encodes);
  }
  const mean = encodes.reduce((a, b) => a + b, 0) / encodes.length;
  const over = idealBytes > 0 ? `${fmt((100 * (bytes - idealBytes)) / idealBytes, 1)} %` : "–";
  return `${within} / ${fmt(mean, 2)} / ${Math.max(...encodes)} (≤ ${MAX_ENCODES}) / ${over}`;
}

interface Outcome {
  within: number;
  encodes: number;
  maxEncodes: number;
  /** Bytes over the lowest quality reaching the level, per image, summed; as a share of that. */
  over: number;
}

async function outcomeOf(curves: Curves, format: SearchedFormat, level: QualityLevel, table: FormatSearch) {
  const target = QUALITY_LEVELS[level];
  let within = 0;
  let bytes = 0;
  let ideal = 0;
  let encodes = 0;
  let maxEncodes = 0;
  for (const c of curves) {
    const curve = c.curves[format];
    const searched = await simulate(curve, format, level, table);
    if (searched.score >= target && searched.score < target + SCORE_TOLERANCE) within++;
    const lowest = lowestReaching(curve, target);
    if (lowest) {
      ideal += lowest.bytes;
      bytes += searched.encoded.data.length;
    }
    encodes += searched.encodes;
    maxEncodes = Math.max(maxEncodes, searched.encodes);
  }
  return { within, encodes: encodes / curves.length, maxEncodes, over: ideal > 0 ? bytes / ideal - 1 : 0 };
}

/**
 * A table chosen on the curves: per format one usual slope and per level one start, the fewest encodes
 * that put at least as many images within a point as the current table and spend at most half a
 * percent more bytes over the ideal. Calibrated on this corpus: the figures say how well, not how well
 * elsewhere.
 */
async function optimise(curves: Curves): Promise<void> {
  const chosen: Partial<Record<SearchedFormat, FormatSearch>> = {};
  console.log(
    "\n| format | level | current: within 1 / encodes mean / max / bytes over ideal | chosen start | chosen: the same |",
  );
  console.log("|---|---|---|---|---|");
  for (const format of FORMATS) {
    const current = SEARCH[format];
    let best: { table: FormatSearch; cost: number; outcomes: Record<string, Outcome> } | null = null;
    for (let slope = 0.35; slope <= 0.95; slope += 0.05) {
      const start = {} as Record<QualityLevel, number>;
      const outcomes: Record<string, Outcome> = {};
      let cost = 0;
      for (const level of LEVELS) {
        const now = await outcomeOf(curves, format, level, current);
        let pick: { start: number; outcome: Outcome } | null = null;
        for (let q = current.min; q <= current.max; q++) {
          const table = { ...current, slope, start: { ...current.start, [level]: q } };
          const outcome = await outcomeOf(curves, format, level, table);
          if (outcome.within < now.within || outcome.over > now.over + 0.005) continue;
          if (!pick || outcome.encodes < pick.outcome.encodes) pick = { start: q, outcome };
        }
        start[level] = pick?.start ?? current.start[level];
        outcomes[level] = pick?.outcome ?? now;
        cost += outcomes[level]!.encodes;
      }
      if (!best || cost < best.cost)
        best = { table: { ...current, slope: Number(slope.toFixed(2)), start }, cost, outcomes };
    }
    chosen[format] = best!.table;
    for (const level of LEVELS) {
      const now = await outcomeOf(curves, format, level, current);
      const o = best!.outcomes[level]!;
      const show = (x: Outcome) => `${x.within} / ${fmt(x.encodes, 2)} / ${x.maxEncodes} / ${fmt(100 * x.over, 1)} %`;
      console.log(
        `| ${format} | ${level} | ${show(now)} | ${best!.table.start[level]} (slope ${best!.table.slope}) | ${show(o)} |`,
      );
    }
  }
  console.log(`\nChosen table:\n${JSON.stringify(chosen, null, 2)}`);
}

const simulateOnly = process.argv.includes("--simulate");
if (simulateOnly && !existsSync(OUT)) throw new Error(`${OUT} is missing: run without --simulate first`);
const curves: Curves = simulateOnly ? (JSON.parse(readFileSync(OUT, "utf8")) as Curves) : await measure();
await report(curves);
if (process.argv.includes("--optimise")) await optimise(curves);

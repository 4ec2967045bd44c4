/**
 * npm run bench:metric — what the SSIMULACRA 2 metric (src/server/image/quality) costs in JavaScript on
 * this machine: preparing an original (its side of every scale, once per image), one comparison with
 * an encode (paid per candidate quality), both together (one pair, `ssimulacra2`), and one original
 * against four encodes (q40, q60, q75, q90: a q_auto search scores up to four), for three sizes. The
 * original is bench:image's photographic JPEG texture resized; the pair's encode its JPEG q60. Median
 * of 9 runs after 2 unmeasured.
 * Then what q_auto costs a whole transform (the route's pipeline in this process, one at a time):
 * bench:image's 12 MP JPEG to an 800 px WebP at q_80 and at each q_auto level, median of 5.
 */
import sharp from "sharp";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { ssimulacra2, ssimulacra2Against, type RawImage } from "@/server/image/quality/ssimulacra2";
import { fmt } from "./lib/load";
import { makeSources } from "./lib/sources";

const SIZES = [
  [256, 256],
  [800, 600],
  [1600, 1200],
] as const;
const RUNS = 9;

async function raw(input: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(input).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 };
}

function medianMs(run: () => unknown): number {
  for (let i = 0; i < 2; i++) run();
  const times = Array.from({ length: RUNS }, () => {
    const start = performance.now();
    run();
    return performance.now() - start;
  }).sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)]!;
}

async function wholeTransforms(jpeg: Buffer): Promise<void> {
  configureSharp();
  console.log("\n| 12 MP JPEG → 800 px WebP | median ms | CPU ms | bytes | quality; score |");
  console.log("|---|---|---|---|---|");
  for (const segment of [
    "w_800,q_80,f_webp",
    ...["low", "eco", "good", "best"].map((l) => `w_800,q_auto:${l},f_webp`),
  ]) {
    const run = () => transformImage(jpeg, parseOperations(segment), { accept: null }, DEFAULT_TRANSFORM_LIMITS);
    const result = await run();
    const times: number[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await run();
      times.push(performance.now() - start);
    }
    const used = process.cpuUsage(cpu);
    const median = times.sort((a, b) => a - b)[2]!;
    const chosen = result.measured ? `${result.measured.quality}; ${fmt(result.measured.score, 1)}` : "–";
    console.log(
      `| ${segment} | ${fmt(median, 0)} | ${fmt((used.user + used.system) / 5000, 0)} | ${result.body.length} | ${chosen} |`,
    );
  }
}

async function main(): Promise<void> {
  const jpeg = (await makeSources()).find((s) => s.kind === "jpeg")!.body;
  console.log(
    "| size | prepare the original ms | compare one encode ms | both (one pair) ms | one original, 4 encodes ms | score |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const [width, height] of SIZES) {
    const resized = await sharp(jpeg).resize(width, height, { fit: "cover" }).png().toBuffer();
    const original = await raw(resized);
    const encodes = await Promise.all(
      [40, 60, 75, 90].map(async (quality) => raw(await sharp(resized).jpeg({ quality }).toBuffer())),
    );
    const encode = encodes[1]!;
    const against = ssimulacra2Against(original);
    const prepare = medianMs(() => ssimulacra2Against(original));
    const compare = medianMs(() => against(encode));
    const both = medianMs(() => ssimulacra2(original, encode));
    const search = medianMs(() => {
      const scorer = ssimulacra2Against(original);
      for (const candidate of encodes) scorer(candidate);
    });
    console.log(
      `| ${width}×${height} | ${fmt(prepare, 0)} | ${fmt(compare, 0)} | ${fmt(both, 0)} | ${fmt(search, 0)} | ${fmt(against(encode), 2)} |`,
    );
  }
  await wholeTransforms(jpeg);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

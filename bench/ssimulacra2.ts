/**
 * npm run bench:metric — what the SSIMULACRA 2 metric (src/server/image/quality) costs in JavaScript on
 * this machine: preparing an original (its side of every scale, once per image), one comparison with
 * an encode (paid per candidate quality), and both together, for three sizes. The pair is bench:image's
 * photographic JPEG texture resized, against its JPEG q60 encode. Median of 9 runs after 2 unmeasured.
 */
import sharp from "sharp";
import { ssimulacra2Against, type RawImage } from "@/server/image/quality/ssimulacra2";
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

async function main(): Promise<void> {
  const jpeg = (await makeSources()).find((s) => s.kind === "jpeg")!.body;
  console.log("| size | prepare the original ms | compare one encode ms | both (one pair) ms | score |");
  console.log("|---|---|---|---|---|");
  for (const [width, height] of SIZES) {
    const resized = await sharp(jpeg).resize(width, height, { fit: "cover" }).png().toBuffer();
    const original = await raw(resized);
    const encode = await raw(await sharp(resized).jpeg({ quality: 60 }).toBuffer());
    const against = ssimulacra2Against(original);
    const prepare = medianMs(() => ssimulacra2Against(original));
    const compare = medianMs(() => against(encode));
    const both = medianMs(() => ssimulacra2Against(original)(encode));
    console.log(
      `| ${width}×${height} | ${fmt(prepare, 0)} | ${fmt(compare, 0)} | ${fmt(both, 0)} | ${fmt(against(encode), 2)} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * npm run bench:effort — what the WebP encoder's effort buys: CPU per image, bytes and PSNR against the
 * resized image before encoding, for efforts 4 (default), 3 and 2 at q80, 800 px wide, with the route's
 * sharp settings (1 thread per image, no operation cache). Sources: bench:image's JPEG and PNG, plus
 * any image files given as arguments. Prints a table; measured in process, one image at a time.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { configureSharp } from "@/server/image/engine";
import { makeSources } from "./lib/sources";

const EFFORTS = [4, 3, 2];
const ROUNDS = 8;

function psnr(reference: Buffer, decoded: Buffer): number {
  let squared = 0;
  for (let i = 0; i < reference.length; i++) squared += (reference[i]! - decoded[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / (squared / reference.length));
}

async function measure(name: string, input: Buffer): Promise<void> {
  const width = Math.min(800, (await sharp(input).metadata()).width!);
  const reference = await sharp(input, { pages: 1 }).resize({ width }).ensureAlpha().raw().toBuffer();
  const baseline: { cpuMs: number; bytes: number }[] = [];
  for (const effort of EFFORTS) {
    const encode = () =>
      sharp(input, { pages: 1, autoOrient: true }).resize({ width }).webp({ quality: 80, effort }).toBuffer();
    let output = await encode();
    const before = process.cpuUsage();
    for (let i = 0; i < ROUNDS; i++) output = await encode();
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000 / ROUNDS;
    const quality = psnr(reference, await sharp(output).ensureAlpha().raw().toBuffer());
    baseline[0] ??= { cpuMs, bytes: output.length };
    const vs = (value: number, base: number) =>
      `${value >= base ? "+" : ""}${(((value - base) / base) * 100).toFixed(0)} %`;
    console.log(
      `| ${name} | ${effort} | ${cpuMs.toFixed(1)} (${vs(cpuMs, baseline[0].cpuMs)}) | ${(output.length / 1024).toFixed(1)} (${vs(output.length, baseline[0].bytes)}) | ${quality.toFixed(2)} |`,
    );
  }
}

async function main(): Promise<void> {
  configureSharp();
  console.log("| source | effort | CPU ms/img (vs 4) | KB (vs 4) | PSNR dB |");
  console.log("|---|---|---|---|---|");
  for (const source of (await makeSources()).filter((s) => s.kind !== "gif"))
    await measure(source.description, source.body);
  for (const file of process.argv.slice(2)) await measure(path.basename(file), readFileSync(file));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/** The ceiling: the same transform in-process with sharp, no HTTP, no fetch. Prints one JSON line. */
import { readFileSync } from "node:fs";
import sharp from "sharp";
import { drive } from "./lib/load";

const [file, totalText, concurrencyText] = process.argv.slice(2) as [string, string, string];
const input = readFileSync(file);

async function main(): Promise<void> {
  const transform = async () => {
    await sharp(input).rotate().resize({ width: 800, withoutEnlargement: true }).toColourspace("srgb").webp({ quality: 80 }).toBuffer();
  };
  await drive(4, Number(concurrencyText), transform);
  const cpuBefore = process.cpuUsage();
  const run = await drive(Number(totalText), Number(concurrencyText), transform);
  const cpu = process.cpuUsage(cpuBefore);
  const peakKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  process.stdout.write(`${JSON.stringify({ ...run, peakRss: peakKb * 1024, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

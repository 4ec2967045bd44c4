/**
 * The ceiling: the signed route's transform in-process with sharp, no HTTP, no fetch, sharp's defaults
 * otherwise. Usage: raw-sharp-worker FILE KIND TOTAL CONCURRENCY, KIND one of jpeg, png, gif (a GIF
 * keeps its frames, as the route does for WebP output). Prints one JSON line.
 */
import { readFileSync } from "node:fs";
import sharp from "sharp";
import { drive } from "./lib/load";
import { machineBusyMs, mappedFilesOfTree } from "./lib/process-memory";

const [file, kind, totalText, concurrencyText] = process.argv.slice(2) as [string, string, string, string];
const input = readFileSync(file);

async function main(): Promise<void> {
  let sample: Buffer | undefined;
  const transform = async () => {
    const output = await sharp(input, { autoOrient: true, ...(kind === "gif" ? { animated: true } : { pages: 1 }) })
      .resize({ width: 800, withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    sample ??= output;
  };
  await drive(Math.max(4, Number(concurrencyText)), Number(concurrencyText), transform);
  const cpuBefore = process.cpuUsage();
  const machineBefore = machineBusyMs();
  const run = await drive(Number(totalText), Number(concurrencyText), transform);
  const cpu = process.cpuUsage(cpuBefore);
  const machineMs = machineBusyMs() - machineBefore;
  const peakKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  const sharpFiles = mappedFilesOfTree(process.pid, /sharp-[\w.-]+\.node$|libvips-cpp/);
  process.stdout.write(
    `${JSON.stringify({ ...run, peakRss: peakKb * 1024, cpuMs: (cpu.user + cpu.system) / 1000, machineMs, sample: sample!.toString("base64"), sharpFiles })}\n`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

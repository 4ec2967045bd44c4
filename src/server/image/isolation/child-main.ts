import { readFile, writeFile } from "node:fs/promises";
import { toWireError } from "@/server/errors";
import { configureSharp } from "../configure-sharp";
import { transformImage } from "../pipeline";
import type { ChildSettings, JobMessage, JobReply } from "./protocol";

/**
 * A transform process: the jobs the server's pool hands it, several at once. It holds no secret and
 * opens no connection; the server may SIGKILL it at any moment (past the time budget or the memory
 * cap), which is the point of running libvips here: a native call that no timeout interrupts
 * (libheif's AVIF encode, librsvg's filters) stops with the process, and its memory goes with it.
 */
const settings = JSON.parse(process.argv[2] ?? "{}") as ChildSettings;
configureSharp(settings.sharp);

process.on("message", (job: JobMessage) => {
  void run(job).then((reply) => process.send?.(reply));
});
// The server went away: nothing will read our answers.
process.on("disconnect", () => process.exit(0));
// Messages sent before the listener above existed would be lost: the pool waits for this one.
process.send?.({ ready: true });

async function run(job: JobMessage): Promise<JobReply> {
  try {
    const input = await readFile(job.inputPath);
    const watermark = job.watermarkPath ? await readFile(job.watermarkPath) : undefined;
    const { body, ...result } = await transformImage(input, job.ops, { accept: job.accept, watermark }, job.limits);
    // Every output crosses as a file, an SVG passed through too: it is the sanitised copy, not the input.
    await writeFile(job.outputPath, body);
    return { id: job.id, ok: true, result };
  } catch (thrown) {
    return { id: job.id, ok: false, error: toWireError(thrown) };
  }
}

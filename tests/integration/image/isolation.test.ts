import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { transformProcessEnv } from "@/env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations, type TransformLimits } from "@/server/image";
import { configureSharp, inProcessTransform, transformImage } from "@/server/image/engine";
import { createProcessPool, type ProcessPool } from "@/server/image/isolation/process-pool";
import { residentBytes } from "@/server/image/isolation/process-memory";
import { testTransformIsolation } from "../../support/app";
import { filterBombSvg } from "../../support/hostile";
import { makeJpeg } from "../../support/images";
import { solid } from "./generate";

// Transforms in killable child processes: the budget holds for native calls libvips cannot interrupt.
let pool: ProcessPool;
const limits: TransformLimits = { ...DEFAULT_TRANSFORM_LIMITS, timeoutMs: 2000 };

beforeAll(() => {
  configureSharp();
  pool = createProcessPool({ ...testTransformIsolation(400 * 2 ** 20), idleMs: 60_000 });
});

afterAll(async () => {
  await pool?.close();
});

async function timed<T>(work: Promise<T>): Promise<{ error: AppError | null; value: T | null; ms: number }> {
  const started = performance.now();
  try {
    const value = await work;
    return { error: null, value, ms: performance.now() - started };
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { error: error as AppError, value: null, ms: performance.now() - started };
  }
}

/**
 * The built transform worker behind a shim that writes down each job it is handed before the worker
 * sees it: how many times a job was started, whatever the pool's own counters say.
 */
function countingWorker(): { entry: string; starts: () => number[]; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-counting-worker-"));
  const log = path.join(dir, "started");
  const entry = path.join(dir, "counting-worker.mjs");
  writeFileSync(
    entry,
    `import { appendFileSync } from "node:fs";
process.on("message", (job) => appendFileSync(${JSON.stringify(log)}, job.id + "\\n"));
await import(${JSON.stringify(testTransformIsolation().entry)});
`,
  );
  return {
    entry,
    starts: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map(Number) : []),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe("transform processes", () => {
  it("produce exactly what the in-process pipeline produces", async () => {
    const photo = await solid(1200, 800, [200, 90, 30]).jpeg().toBuffer();
    for (const segment of ["w_300,f_webp", "s_200x200,g_attention,f_avif", "w_64,placeholder", "_"]) {
      const ops = parseOperations(segment);
      const here = await transformImage(photo, ops, { accept: null }, limits);
      const there = await pool.transform(photo, ops, { accept: null }, limits);
      expect(Buffer.compare(there.body, here.body), segment).toBe(0);
      expect({ ...there, body: null }).toEqual({ ...here, body: null });
    }
  });

  it("read a source given as a file where it is (letting go of its bytes), and leave that file to its owner", async () => {
    const photo = await solid(900, 600, [20, 140, 220]).png().toBuffer();
    const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-source-file-"));
    const file = path.join(dir, "photo.png");
    writeFileSync(file, photo);
    try {
      const ops = parseOperations("w_300,f_webp");
      const fromBytes = await pool.transform(photo, ops, { accept: null }, limits);
      const fromFile = await pool.transform({ path: file }, ops, { accept: null }, limits);
      const inProcess = await inProcessTransform({ path: file }, ops, { accept: null }, limits);
      expect(Buffer.compare(fromFile.body, fromBytes.body)).toBe(0);
      expect(Buffer.compare(inProcess.body, fromBytes.body)).toBe(0);
      expect(existsSync(file) && readFileSync(file).equals(photo)).toBe(true);
      // A file whose bytes the server holds too (just downloaded): the process reads the file, and the
      // server lets go of its copy while the process works.
      const held = { path: file, bytes: Buffer.from(photo) };
      const fromHeld = pool.transform(held, ops, { accept: null }, limits);
      expect(held.bytes).toBeUndefined();
      expect(Buffer.compare((await fromHeld).body, fromBytes.body)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("carry refusals back as the same AppError", async () => {
    const { error } = await timed(
      pool.transform(Buffer.from("not an image"), parseOperations("w_10"), { accept: null }, limits),
    );
    expect(error?.code).toBe("UNSUPPORTED_IMAGE");
    expect(error?.status).toBe(415);
  });

  it("stop an AVIF encode that no timeout interrupts, at the budget (8192² enlarged at q99)", async () => {
    const small = await solid(64, 64, [0, 100, 200]).jpeg().toBuffer();
    // Measured here: the pixels are ready within 6 s, then libheif's single call runs another 6 s in process.
    const unbounded = { ...limits, timeoutMs: 6000, maxOutputPixels: 8192 * 8192, maxAvifPixels: 8192 * 8192 };
    const { error, ms } = await timed(
      pool.transform(small, parseOperations("s_8192x8192,fit_fill,enlarge,f_avif,q_99"), { accept: null }, unbounded),
    );
    // Past the budget, or past the memory cap first (the 67 MP canvas is ≈ 270 MB before encoding).
    expect(["TRANSFORM_TIMEOUT", "TRANSFORM_MEMORY_EXCEEDED"]).toContain(error?.code);
    expect(ms).toBeLessThan(unbounded.timeoutMs + 2500);
  });

  it("stop an SVG filter bomb at the budget or the memory cap", async () => {
    const { error, ms } = await timed(
      pool.transform(filterBombSvg(7000, 4), parseOperations("f_png"), { accept: null }, limits),
    );
    expect(["TRANSFORM_TIMEOUT", "TRANSFORM_MEMORY_EXCEEDED"]).toContain(error?.code);
    expect(ms).toBeLessThan(limits.timeoutMs + 2500);
  });

  it("end a job whose process grows past the memory cap (413), and serve the next one", async () => {
    const tight = createProcessPool({ ...testTransformIsolation(160 * 2 ** 20) });
    try {
      const big = await solid(6000, 6000, [10, 200, 10]).png({ compressionLevel: 1 }).toBuffer();
      const { error } = await timed(
        tight.transform(big, parseOperations("r_90,blur_20,f_png"), { accept: null }, { ...limits, timeoutMs: 20_000 }),
      );
      expect(error?.code).toBe("TRANSFORM_MEMORY_EXCEEDED");
      expect(error?.status).toBe(413);
      expect(tight.stats().killed.memory).toBe(1);
      const small = await solid(40, 40, [1, 2, 3]).png().toBuffer();
      const next = await tight.transform(small, parseOperations("w_20,f_webp"), { accept: null }, limits);
      expect((await sharp(next.body).metadata()).width).toBe(20);
    } finally {
      await tight.close();
    }
  });

  it("answer 422 when a transform process dies under a job, and start a new one", async () => {
    // The worker writes down each job it is handed: the kill waits for that, not for a time. A process
    // killed before it said it was ready failed to start (500, no job's doing), which a fixed delay
    // after the job was queued could not rule out on a busy machine.
    const worker = countingWorker();
    const crashing = createProcessPool({ ...testTransformIsolation(400 * 2 ** 20), entry: worker.entry });
    try {
      // Noise, not a flat colour: the encoders' shortcuts made a flat 3000 px AVIF in under a second on
      // a fast machine, before the kill below, which then found no busy process.
      const photo = await makeJpeg(3000, 3000);
      const job = timed(
        crashing.transform(
          photo,
          parseOperations("blur_50,f_avif"),
          { accept: null },
          { ...limits, timeoutMs: 20_000 },
        ),
      );
      await expect.poll(() => worker.starts(), { interval: 10, timeout: 20_000 }).toEqual([1]);
      // Kill the process running this job from outside, as the kernel's OOM killer or a libvips crash would.
      const [busy] = crashing.stats().busyPids;
      expect(residentBytes(busy!)).toBeGreaterThan(0);
      process.kill(busy!, "SIGKILL");
      const { error } = await job;
      expect(error?.code).toBe("IMAGE_DECODE_FAILED");
      expect(crashing.stats().killed.crashed).toBe(1);
      const after = await crashing.transform(
        await solid(10, 10, [1, 1, 1]).png().toBuffer(),
        parseOperations("f_webp"),
        { accept: null },
        limits,
      );
      expect(after.format).toBe("webp");
      // A job alone in a process that crashed is not run again: its input is what crashed it.
      expect(worker.starts()).toEqual([1, 2]);
    } finally {
      await crashing.close();
      worker.remove();
    }
  });

  it("refuse a job alone in its process at the memory cap at once, and run jobs that shared the process once more, each alone (counted by starts)", async () => {
    const worker = countingWorker();
    const tight = createProcessPool({ ...testTransformIsolation(160 * 2 ** 20), entry: worker.entry });
    try {
      const big = await solid(6000, 6000, [10, 200, 10]).png({ compressionLevel: 1 }).toBuffer();
      const roomy = { ...limits, timeoutMs: 20_000 };
      // Alone from the start, and alone after a neighbour that answered before the kill.
      const { error } = await timed(
        tight.transform(big, parseOperations("r_90,blur_20,f_png"), { accept: null }, roomy),
      );
      expect([error?.code, error?.status]).toEqual(["TRANSFORM_MEMORY_EXCEEDED", 413]);
      expect(worker.starts()).toEqual([1]);
      const small = await solid(40, 40, [1, 2, 3]).png().toBuffer();
      const neighbour = tight.transform(small, parseOperations("w_20,f_webp"), { accept: null }, limits);
      const heavy = timed(tight.transform(big, parseOperations("r_90,blur_20,f_png"), { accept: null }, roomy));
      expect((await neighbour).width).toBe(20);
      expect((await heavy).error?.code).toBe("TRANSFORM_MEMORY_EXCEEDED");
      expect(worker.starts()).toEqual([1, 2, 3]);
      expect(tight.stats()).toMatchObject({ killed: { memory: 2, timeout: 0, crashed: 0 }, retried: 0 });
      // Two at once share a process: past the cap together, neither is to blame; each runs once more
      // alone (where only its own fault can end it), and is refused then.
      const both = await Promise.all(
        [0, 1].map(() => timed(tight.transform(big, parseOperations("r_90,blur_20,f_png"), { accept: null }, roomy))),
      );
      expect(both.map(({ error }) => error?.code)).toEqual(["TRANSFORM_MEMORY_EXCEEDED", "TRANSFORM_MEMORY_EXCEEDED"]);
      expect(worker.starts().slice(3).sort()).toEqual([4, 4, 5, 5]);
      expect(tight.stats()).toMatchObject({ killed: { memory: 5, timeout: 0, crashed: 0 }, retried: 2 });
    } finally {
      await tight.close();
      worker.remove();
    }
  });

  it("kill a job past its budget and run the three innocent jobs that shared its process again: all three answer", async () => {
    // A short grace, so the kill lands while the three are surely still running.
    const shared = createProcessPool({ ...testTransformIsolation(1024 * 2 ** 20), jobsPerProcess: 4, graceMs: 100 });
    try {
      const photo = await makeJpeg(3000, 3000);
      const innocentOps = ["blur_30,f_avif,q_80", "blur_25,f_avif,q_70", "blur_20,f_avif,q_60"].map((s) =>
        parseOperations(s),
      );
      const slow = { ...limits, timeoutMs: 30_000 };
      // The hostile job first: the three after it are packed into its process.
      const hostile = timed(
        shared.transform(
          filterBombSvg(7000, 4),
          parseOperations("f_png"),
          { accept: null },
          { ...limits, timeoutMs: 300 },
        ),
      );
      const innocents = innocentOps.map((ops) => timed(shared.transform(photo, ops, { accept: null }, slow)));
      const { error } = await hostile;
      expect(["TRANSFORM_TIMEOUT", "TRANSFORM_MEMORY_EXCEEDED"]).toContain(error?.code);
      const answers = await Promise.all(innocents);
      for (const [i, answer] of answers.entries()) {
        expect(answer.error, `innocent ${i}`).toBeNull();
        const alone = await transformImage(photo, innocentOps[i]!, { accept: null }, slow);
        expect(Buffer.compare(answer.value!.body, alone.body), `innocent ${i}`).toBe(0);
      }
      // Each was still running when the process was killed, and ran again alone (past the memory cap,
      // no one job is to blame: the hostile one is retried alone too, and refused again).
      expect(shared.stats().retried).toBeGreaterThanOrEqual(3);
    } finally {
      await shared.close();
    }
    // Nine 3000 px AVIF encodes (three killed, three again alone, three references): ≈ 14 s on an idle
    // machine of this kind, past the default 30 s when other work shares its two cores.
  }, 120_000);

  it("end a process past the memory cap with no one to blame, and let each job prove itself alone: only the heavy one is refused", async () => {
    const shared = createProcessPool({ ...testTransformIsolation(256 * 2 ** 20), jobsPerProcess: 3 });
    try {
      const big = await solid(8000, 8000, [10, 200, 10]).png({ compressionLevel: 1 }).toBuffer();
      const photo = await makeJpeg(1600, 1600);
      const roomy = { ...limits, timeoutMs: 30_000, maxInputPixels: 100_000_000 };
      // The light ones first, so they are running when the heavy one fills the process.
      const lightOps = ["blur_30,f_avif", "blur_20,f_avif"].map((s) => parseOperations(s));
      const light = lightOps.map((ops) => timed(shared.transform(photo, ops, { accept: null }, roomy)));
      const heavy = timed(shared.transform(big, parseOperations("r_90,blur_20,f_png"), { accept: null }, roomy));
      const { error } = await heavy;
      expect(error?.code).toBe("TRANSFORM_MEMORY_EXCEEDED");
      const answers = await Promise.all(light);
      for (const [i, answer] of answers.entries()) {
        expect(answer.error, `light ${i}`).toBeNull();
        const alone = await transformImage(photo, lightOps[i]!, { accept: null }, roomy);
        expect(Buffer.compare(answer.value!.body, alone.body), `light ${i}`).toBe(0);
      }
      // Killed with three jobs in it: all three ran again alone, and only the heavy one failed again.
      expect(shared.stats().killed.memory).toBe(2);
      expect(shared.stats().retried).toBe(3);
    } finally {
      await shared.close();
    }
  });

  it("hand no job to a process that is being replaced: back-to-back jobs all answer", async () => {
    // Every process is over this size after a job, so each one is replaced as its job ends.
    const replacing = createProcessPool({ ...testTransformIsolation(400 * 2 ** 20), recycleBytes: 1 });
    const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-replaced-"));
    const file = path.join(dir, "photo.png");
    writeFileSync(file, await solid(300, 200, [20, 140, 220]).png().toBuffer());
    try {
      for (let i = 0; i < 12; i++) {
        // A source in a file: nothing is awaited between one job's end and the next one's process.
        const out = await replacing.transform(
          { path: file },
          parseOperations(`w_${20 + i},f_webp`),
          { accept: null },
          limits,
        );
        expect((await sharp(out.body).metadata()).width).toBe(20 + i);
      }
      expect(replacing.stats().killed.crashed).toBe(0);
    } finally {
      await replacing.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("never hand a job to a process that died after its last answer (every job settles)", async () => {
    // A stand-in transform process: answers each job with a large output, then exits at once, so the
    // exit races the server's read of the output.
    const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-fake-worker-"));
    const entry = path.join(dir, "dies-after-reply.mjs");
    writeFileSync(
      entry,
      `import { writeFile } from "node:fs/promises";
process.on("message", async (job) => {
  await writeFile(job.outputPath, Buffer.alloc(32 * 1024 * 1024));
  process.send({ id: job.id, ok: true, result: { format: "png", contentType: "image/png", width: 1, height: 1, negotiated: false } }, () => process.exit(0));
});
process.send({ ready: true });
`,
    );
    const flaky = createProcessPool({ entry, memoryLimitBytes: 2 ** 30 });
    try {
      for (let i = 0; i < 4; i++) {
        const job = flaky.transform(Buffer.from("x"), parseOperations("_"), { accept: null }, limits);
        const outcome = await Promise.race([
          job.then(
            () => "answered",
            (error: AppError) => error.code,
          ),
          new Promise((resolve) => setTimeout(() => resolve("hung"), 5000)),
        ]);
        expect(["answered", "IMAGE_DECODE_FAILED"], `job ${i}`).toContain(outcome);
      }
    } finally {
      await flaky.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("give transform processes none of the server's secrets", () => {
    const seen = transformProcessEnv({
      OPTSTUFF_KEY_ENCRYPTION_SECRET: "s",
      DATABASE_URL: "postgres://u:p@h/db",
      BETTER_AUTH_SECRET: "b",
      UPSTASH_REDIS_REST_TOKEN: "t",
      MALLOC_ARENA_MAX: "2",
      VIPS_WARNING: "0",
    });
    expect(seen).toEqual({ MALLOC_ARENA_MAX: "2", VIPS_WARNING: "0" });
  });

  it("lower the CPU priority of the processes that run a tenant's extra jobs", async () => {
    const small = await solid(10, 10, [1, 1, 1]).png().toBuffer();
    const { execSync } = await import("node:child_process");
    const niceOf = () => execSync(`ps -o ni= --ppid ${process.pid}`).toString().trim().split(/\s+/).map(Number);
    await pool.transform(small, parseOperations("f_webp"), { accept: null }, limits, "background");
    expect(niceOf()).toContain(19);
    expect(niceOf()).toContain(0);
  });

  it("run normal jobs at the configured niceness, below the server's thread and above a tenant's extra jobs", async () => {
    const niced = createProcessPool({ ...testTransformIsolation(400 * 2 ** 20), normalNice: 10 });
    try {
      const { execSync } = await import("node:child_process");
      await niced.transform(
        await solid(10, 10, [1, 1, 1]).png().toBuffer(),
        parseOperations("f_webp"),
        { accept: null },
        limits,
      );
      const nices = execSync(`ps -o ni= --ppid ${process.pid}`).toString().trim().split(/\s+/).map(Number);
      expect(nices).toContain(10);
    } finally {
      await niced.close();
    }
  });

  it("give the memory of a heavy job back: a process left large is replaced", async () => {
    const photo = await solid(5000, 5000, [90, 90, 90]).png({ compressionLevel: 1 }).toBuffer();
    await pool.transform(photo, parseOperations("r_90,f_png"), { accept: null }, { ...limits, timeoutMs: 20_000 });
    const { execSync } = await import("node:child_process");
    const sizes = execSync(`ps -o rss= --ppid ${process.pid}`)
      .toString()
      .trim()
      .split(/\s+/)
      .map((kb) => Number(kb) * 1024);
    // Every remaining process is under the recycling threshold (160 MB).
    for (const size of sizes) expect(size).toBeLessThan(165 * 2 ** 20);
  });
});

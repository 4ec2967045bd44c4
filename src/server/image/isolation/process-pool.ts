import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import type { JobPriority } from "../transform-scheduler";
import path from "node:path";
import { AppError, fromWireError } from "@/server/errors";
import { createScratchDirectory } from "@/server/scratch-directory";
import type { SharpSettings } from "../configure-sharp";
import type { Transformer } from "../transformer";
import type { ChildSettings, JobMessage, JobReply } from "./protocol";
import { residentBytes } from "./process-memory";

export interface ProcessPoolOptions {
  /** The built child script (scripts/build-transform-worker.mjs writes it). */
  entry: string;
  /** Resident bytes a transform process may reach; past it the job is killed (413). */
  memoryLimitBytes: number;
  /** How long past the job's time budget the process is killed, when libvips' own timeout could not stop it. Default 1 s. */
  graceMs?: number;
  /** A process idle this long exits, so an idle server holds no transform memory. Default 30 s. */
  idleMs?: number;
  /** A process larger than this after a job is replaced: glibc keeps freed arenas, a new process starts small (≈ 60 MB). Default 160 MB. */
  recycleBytes?: number;
  /** CPU niceness of the processes that run a tenant's extra jobs (see JobPriority). Default 19: they only use what nobody else wants. */
  backgroundNice?: number;
  /** CPU niceness of the processes that run normal jobs. Default 0 (the server's own). */
  normalNice?: number;
  /** The transform processes' environment. Default empty: they need no secret, URL or token. */
  env?: Record<string, string>;
  /** How often a running job's process size is read. Default 25 ms. */
  watchIntervalMs?: number;
  sharp?: SharpSettings;
}

export interface ProcessPool {
  transform: Transformer;
  stats(): { processes: number; busyPids: number[]; killed: { timeout: number; memory: number; crashed: number } };
  close(): Promise<void>;
}

interface Worker {
  child: ChildProcess;
  priority: JobPriority;
  /** Exited, or never started: never handed a job again. */
  dead: boolean;
  ready: Promise<void>;
  busy: boolean;
  idleTimer?: NodeJS.Timeout;
  /** Settles the running job when the process exits (killed or crashed). */
  onExit?: (detail: string) => void;
  onReply?: (reply: JobReply) => void;
}

/**
 * Transforms in child processes that can be stopped. sharp's timeout is checked between libvips
 * operations, so a single long native call (libheif's AVIF encode, librsvg's SVG filters) runs past
 * any budget and can take gigabytes; inside a child, the server kills it at the budget or at the memory
 * cap, answers 504 or 413, and the memory returns to the system with the process. The number of
 * processes follows the transform scheduler's slots (it never runs more jobs than that at once).
 */
export function createProcessPool(options: ProcessPoolOptions): ProcessPool {
  const graceMs = options.graceMs ?? 1000;
  const idleMs = options.idleMs ?? 30_000;
  const recycleBytes = options.recycleBytes ?? Math.min(160 * 2 ** 20, options.memoryLimitBytes / 2);
  const watchIntervalMs = options.watchIntervalMs ?? 25;
  const settings: ChildSettings = { sharp: options.sharp ?? {} };
  const scratch = createScratchDirectory("optstuff-transform-");
  // Niceness can only be raised without privileges, so each process keeps the priority it started with.
  const idle: Record<JobPriority, Worker[]> = { normal: [], background: [] };
  const all = new Set<Worker>();
  const killed = { timeout: 0, memory: 0, crashed: 0 };
  let sequence = 0;
  let closed = false;

  function spawnWorker(priority: JobPriority): Worker {
    if (!existsSync(options.entry)) {
      throw new AppError("INTERNAL", {
        detail: `transform worker not built: ${options.entry} (npm run build writes it)`,
      });
    }
    // Only what a libvips process needs: no secret or database URL reaches code that parses hostile bytes.
    const child = fork(options.entry, [JSON.stringify(settings)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      execArgv: [],
      env: { NODE_ENV: "production", ...options.env },
    });
    const nice = priority === "background" ? (options.backgroundNice ?? 19) : (options.normalNice ?? 0);
    if (nice > 0 && child.pid !== undefined) lowerPriority(child.pid, nice);
    let started!: () => void;
    let failed!: (error: AppError) => void;
    const ready = new Promise<void>((resolve, reject) => ((started = resolve), (failed = reject)));
    ready.catch(() => {});
    const worker: Worker = { child, priority, dead: false, busy: false, ready };
    const die = (detail: string) => {
      if (worker.dead) return;
      worker.dead = true;
      all.delete(worker);
      removeIdle(worker);
      failed(new AppError("INTERNAL", { detail: `transform process did not start (${detail})` }));
      worker.onExit?.(detail);
    };
    child.on("message", (reply: JobReply | { ready: true }) => {
      if (!("id" in reply)) started();
      else worker.onReply?.(reply);
    });
    child.on("exit", (code, signal) => die(`transform process exited (${signal ?? `code ${code}`})`));
    // A spawn that fails (EAGAIN, ENOENT) emits "error" and no "exit".
    child.on("error", (error) => {
      child.kill("SIGKILL");
      if (child.pid === undefined || child.exitCode !== null) die(`transform process failed: ${error.message}`);
    });
    all.add(worker);
    return worker;
  }

  function removeIdle(worker: Worker): void {
    clearTimeout(worker.idleTimer);
    const list = idle[worker.priority];
    const index = list.indexOf(worker);
    if (index >= 0) list.splice(index, 1);
  }

  function acquire(priority: JobPriority): Worker {
    let worker = idle[priority].pop();
    while (worker && (worker.dead || !worker.child.connected)) worker = idle[priority].pop();
    worker ??= spawnWorker(priority);
    clearTimeout(worker.idleTimer);
    worker.busy = true;
    return worker;
  }

  function release(worker: Worker): void {
    worker.busy = false;
    worker.onReply = undefined;
    worker.onExit = undefined;
    if (worker.dead) return;
    const size = residentBytes(worker.child.pid ?? -1);
    if (closed || !worker.child.connected || (size !== null && size > recycleBytes)) {
      worker.child.kill("SIGKILL");
      return;
    }
    worker.idleTimer = setTimeout(() => worker.child.kill("SIGKILL"), idleMs);
    worker.idleTimer.unref();
    idle[worker.priority].push(worker);
  }

  const transform: Transformer = async (input, ops, request, limits, priority = "normal") => {
    if (closed) throw new AppError("NOT_READY", { detail: "transform pool closed" });
    const id = ++sequence;
    const directory = scratch.path();
    // A source already in a file (the source cache's) is read from there: its bytes are never copied.
    const given = Buffer.isBuffer(input) ? null : input.path;
    const job: JobMessage = {
      id,
      inputPath: given ?? path.join(directory, `${id}.in`),
      outputPath: path.join(directory, `${id}.out`),
      ...(request.watermark ? { watermarkPath: path.join(directory, `${id}.wm`) } : {}),
      ops,
      accept: request.accept,
      limits,
    };
    try {
      if (Buffer.isBuffer(input)) await writeFile(job.inputPath, input);
      if (job.watermarkPath && request.watermark) await writeFile(job.watermarkPath, request.watermark);
      const worker = acquire(priority);
      await worker.ready;
      return await runJob(worker, job);
    } finally {
      if (!given) void unlink(job.inputPath).catch(() => {});
      void unlink(job.outputPath).catch(() => {});
      if (job.watermarkPath) void unlink(job.watermarkPath).catch(() => {});
    }
  };

  function runJob(worker: Worker, job: JobMessage): Promise<Awaited<ReturnType<Transformer>>> {
    return new Promise((resolve, reject) => {
      let reason: AppError | null = null;
      let settled = false;
      const pid = worker.child.pid ?? -1;
      // Every way out goes through here once: timers stop, the worker is let go, the job settles.
      const finish = (outcome: () => void, free: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearInterval(watch);
        worker.onReply = undefined;
        worker.onExit = undefined;
        if (free) release(worker);
        outcome();
      };
      const stop = (error: AppError, counter: keyof typeof killed) => {
        if (reason || settled) return;
        reason = error;
        killed[counter]++;
        worker.child.kill("SIGKILL");
        // The exit event settles the job; if the process was already gone, none will come.
        if (worker.dead) finish(() => reject(error), false);
      };
      const deadline = setTimeout(
        () =>
          stop(
            new AppError("TRANSFORM_TIMEOUT", {
              detail: `transform process killed after ${job.limits.timeoutMs + graceMs} ms`,
            }),
            "timeout",
          ),
        job.limits.timeoutMs + graceMs,
      );
      const watch = setInterval(() => {
        const size = residentBytes(pid);
        if (size !== null && size > options.memoryLimitBytes) {
          const detail = `transform process at ${Math.round(size / 2 ** 20)} MB > ${Math.round(options.memoryLimitBytes / 2 ** 20)} MB`;
          stop(new AppError("TRANSFORM_MEMORY_EXCEEDED", { detail }), "memory");
        }
      }, watchIntervalMs);
      worker.onExit = (detail) => {
        if (!reason) killed.crashed++;
        // A crash inside libvips on hostile bytes is the input's doing: it costs that request only.
        finish(() => reject(reason ?? new AppError("IMAGE_DECODE_FAILED", { detail })), false);
      };
      worker.onReply = (reply) => {
        // A reply racing a kill, or one for another job, is not this job's answer.
        if (reason || reply.id !== job.id) return;
        if (!reply.ok) {
          finish(() => reject(fromWireError(reply.error)), true);
          return;
        }
        readFile(job.outputPath).then(
          (bytes) => finish(() => resolve({ ...reply.result, body: bytes }), true),
          (error: unknown) => finish(() => reject(error), true),
        );
      };
      worker.child.send(job, (error) => {
        if (!error) return;
        worker.child.kill("SIGKILL");
        finish(
          () =>
            reject(new AppError("INTERNAL", { detail: "could not hand a job to a transform process", cause: error })),
          false,
        );
      });
    });
  }

  return {
    transform,
    stats: () => ({
      processes: all.size,
      busyPids: [...all].filter((w) => w.busy && w.child.pid !== undefined).map((w) => w.child.pid!),
      killed: { ...killed },
    }),
    async close() {
      closed = true;
      const exits = [...all].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.child.exitCode !== null || worker.child.signalCode !== null) return resolve();
            worker.child.once("exit", () => resolve());
            worker.child.kill("SIGKILL");
          }),
      );
      await Promise.all(exits);
      scratch.remove();
    },
  };
}

function lowerPriority(pid: number, nice: number): void {
  try {
    os.setPriority(pid, nice);
  } catch {
    // Not permitted here (some sandboxes): the job still runs, at normal priority.
  }
}

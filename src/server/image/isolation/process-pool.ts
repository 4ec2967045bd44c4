import { readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError, fromWireError } from "@/server/errors";
import { createScratchDirectory } from "@/server/scratch-directory";
import type { SharpSettings } from "../configure-sharp";
import { FACE_DETECTOR_BYTES } from "../faces/detector";
import { facesWanted } from "../faces/subject-crop";
import type { Transformer } from "../transformer";
import type { JobPriority } from "../transform-scheduler";
import type { TransformResult } from "../types";
import { imageSettings } from "../settings";
import { residentBytes } from "./process-memory";
import type { JobMessage } from "./protocol";
import { laneOf, spawnTransformProcess, type Lane, type ProcessEnd, type TransformProcess } from "./transform-process";

/** Transforms in killable child processes, as the server is configured (isolation/settings.ts: transformIsolationOf). */
export interface TransformIsolation {
  /** Stills within the in-process budgets run in the server's process, the rest here (placement.ts). */
  byInput: boolean;
  /** The built transform process script. */
  entry: string;
  memoryLimitBytes: number;
  /** Jobs one process runs at once (OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS). */
  jobsPerProcess?: number;
  /** What the processes may see of the environment (transformProcessEnv); default none. */
  env?: Record<string, string>;
  /** CPU niceness of the processes running normal jobs (OPTSTUFF_TRANSFORM_NICE). */
  nice?: number;
}

export interface ProcessPoolOptions {
  /** The built child script (scripts/build-transform-worker.mjs writes it). */
  entry: string;
  /** Resident bytes a transform process may reach; past it its jobs are ended (413 for the one to blame). */
  memoryLimitBytes: number;
  /**
   * Jobs one process runs at once (default: OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS's). More share one process's start-up, libraries and
   * memory (a process costs ≈ 60 MB before its first pixel); a kill then ends its neighbours too, and
   * they are retried once, each in a process of its own.
   */
  jobsPerProcess?: number;
  /** How long past the job's time budget the process is killed, when libvips' own timeout could not stop it. Default 1 s. */
  graceMs?: number;
  /** A process idle this long exits, so an idle server holds no transform memory. Default 30 s. */
  idleMs?: number;
  /** A process larger than this once idle is replaced: glibc keeps freed arenas, a new process starts small (≈ 60 MB). Default 160 MB. */
  recycleBytes?: number;
  /** CPU niceness of the processes that run a tenant's extra jobs (see JobPriority). Default 19: they only use what nobody else wants. */
  backgroundNice?: number;
  /** CPU niceness of the processes that run normal jobs. Default 0 (the server's own). */
  normalNice?: number;
  /** The transform processes' environment. Default empty: they need no secret, URL or token. */
  env?: Record<string, string>;
  /** How often a busy process's size is read. Default 25 ms. */
  watchIntervalMs?: number;
  sharp?: SharpSettings;
}

export interface ProcessPool {
  transform: Transformer;
  stats(): {
    processes: number;
    busyPids: number[];
    killed: { timeout: number; memory: number; crashed: number };
    /** Jobs ended by a neighbour's kill or crash and run again alone. */
    retried: number;
  };
  close(): Promise<void>;
}

/** A job's way out of one process: its answer, its own failure, or a neighbour's (run it again). */
type Outcome =
  { kind: "answered"; result: TransformResult } | { kind: "failed"; error: unknown } | { kind: "collateral" };

/**
 * Transforms in child processes that can be stopped. sharp's timeout is checked between libvips
 * operations, so a single long native call (libheif's AVIF encode, librsvg's SVG filters) runs past
 * any budget and can take gigabytes; inside a child, the server kills it at the budget or at the memory
 * cap, answers 504 or 413, and the memory returns to the system with the process. The transform
 * scheduler bounds the jobs running at once; this pool packs them `jobsPerProcess` to a process.
 *
 * A kill ends every job in the process. The one past its time budget is to blame; past the memory cap
 * or in a crash, no one job is, unless it ran alone. Every other job is run again once, alone in a new
 * process, where only its own fault can end it: an innocent neighbour still gets its answer.
 */
export function createProcessPool(options: ProcessPoolOptions): ProcessPool {
  const capacity = Math.max(
    1,
    options.jobsPerProcess ?? imageSettings.settings.OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS.default,
  );
  const graceMs = options.graceMs ?? 1000;
  const idleMs = options.idleMs ?? 30_000;
  const recycleBytes = options.recycleBytes ?? Math.min(160 * 2 ** 20, options.memoryLimitBytes / 2);
  const watchIntervalMs = options.watchIntervalMs ?? 25;
  const scratch = createScratchDirectory("optstuff-transform-");
  // Niceness can only be raised without privileges, so each process keeps the priority it started with.
  const live: Record<Lane, Set<TransformProcess>> = { normal: new Set(), background: new Set() };
  const killed = { timeout: 0, memory: 0, crashed: 0 };
  let retried = 0;
  let sequence = 0;
  let closed = false;

  function spawn(lane: Lane): TransformProcess {
    const proc = spawnTransformProcess(lane, {
      entry: options.entry,
      settings: { sharp: options.sharp ?? {} },
      // Each running job holds a libuv thread; two more for the files it reads and writes.
      env: { ...options.env, UV_THREADPOOL_SIZE: String(Math.max(4, capacity + 2)) },
      nice: lane === "background" ? (options.backgroundNice ?? 19) : (options.normalNice ?? 0),
      onGone: (gone, held) => {
        live[gone.lane].delete(gone);
        // Ended with jobs and not by us: it crashed (or something outside killed it).
        if (held > 0 && !gone.killedFor && gone.started) killed.crashed++;
      },
    });
    live[lane].add(proc);
    return proc;
  }

  /** The fullest process with room (fewer processes, less memory), or a new one; alone: always new. */
  function acquire(priority: JobPriority, alone: boolean): TransformProcess {
    const lane = laneOf(priority);
    let chosen: TransformProcess | undefined;
    if (!alone) {
      for (const proc of live[lane]) {
        if (proc.state !== "open" || !proc.child.connected || proc.jobs.size >= capacity) continue;
        if (!chosen || proc.jobs.size > chosen.jobs.size) chosen = proc;
      }
    }
    chosen ??= spawn(lane);
    if (alone) chosen.holdAlone();
    clearTimeout(chosen.idleTimer);
    watchMemory(chosen);
    return chosen;
  }

  function watchMemory(proc: TransformProcess): void {
    if (proc.watch) return;
    const pid = proc.child.pid ?? -1;
    proc.watch = setInterval(() => {
      const size = residentBytes(pid);
      if (size === null || size <= options.memoryLimitBytes || proc.killedFor) return;
      killed.memory++;
      const detail = `transform process at ${Math.round(size / 2 ** 20)} MB > ${Math.round(options.memoryLimitBytes / 2 ** 20)} MB`;
      proc.kill({ job: null, error: new AppError("TRANSFORM_MEMORY_EXCEEDED", { detail }) });
    }, watchIntervalMs);
  }

  /**
   * A job left the process. One grown large takes no new job (glibc keeps what its jobs freed) and ends
   * with its last one; otherwise, once it holds none, it waits for the next.
   */
  function release(proc: TransformProcess, id: number): void {
    proc.jobs.delete(id);
    if (proc.state === "dead") return;
    const size = residentBytes(proc.child.pid ?? -1);
    // The face detector is not garbage to shed: replacing its process would load it again, job after job.
    const allowed = recycleBytes + (proc.holdsFaceDetector ? FACE_DETECTOR_BYTES : 0);
    if (closed || !proc.child.connected || (size !== null && size > allowed)) proc.windDown();
    if (proc.jobs.size > 0) return;
    clearInterval(proc.watch);
    proc.watch = undefined;
    if (proc.state === "retiring") return proc.retire();
    proc.reopen();
    clearTimeout(proc.idleTimer);
    proc.idleTimer = setTimeout(() => {
      if (proc.jobs.size === 0) proc.retire();
    }, idleMs);
    proc.idleTimer.unref();
  }

  const transform: Transformer = async (input, ops, request, limits, priority = "normal") => {
    if (closed) throw new AppError("NOT_READY", { detail: "transform pool closed" });
    const id = ++sequence;
    const directory = scratch.path();
    // A source already in a file (the source cache's) is read from there: its bytes are never copied,
    // and the copy the server holds in memory (just downloaded) is let go while the process works.
    const given = Buffer.isBuffer(input) ? null : input.path;
    if (!Buffer.isBuffer(input)) input.bytes = undefined;
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
      let outcome = await runIn(acquire(priority, false), job);
      if (outcome.kind === "collateral" && closed) throw new AppError("NOT_READY", { detail: "transform pool closed" });
      if (outcome.kind === "collateral") {
        retried++;
        outcome = await runIn(acquire(priority, true), job);
      }
      if (outcome.kind === "answered") return outcome.result;
      throw outcome.kind === "failed" ? outcome.error : new AppError("INTERNAL", { detail: "transform retried twice" });
    } finally {
      if (!given) void unlink(job.inputPath).catch(() => {});
      void unlink(job.outputPath).catch(() => {});
      if (job.watermarkPath) void unlink(job.watermarkPath).catch(() => {});
    }
  };

  function runIn(proc: TransformProcess, job: JobMessage): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      const finish = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        release(proc, job.id);
        resolve(outcome);
      };
      if (facesWanted(job.ops)) proc.holdsFaceDetector = true;
      // Counted in the process from now on, so the next acquire sees its room taken even while it starts.
      proc.jobs.set(job.id, {
        reply: (reply) => {
          // A reply racing a kill is not an answer: the process's end decides.
          if (proc.killedFor) return;
          // Answered: its budget no longer runs (a kill now would blame a job that is done).
          clearTimeout(deadline);
          if (!reply.ok) return finish({ kind: "failed", error: fromWireError(reply.error) });
          // Its output is in the file: a kill from now on (a neighbour's) cannot take the answer away.
          proc.jobs.delete(job.id);
          readFile(job.outputPath).then(
            (bytes) => finish({ kind: "answered", result: { ...reply.result, body: bytes } }),
            (error: unknown) => finish({ kind: "failed", error }),
          );
        },
        ended: (end) => finish(blame(end, job.id, proc)),
      });
      proc.ready.then(
        () => {
          if (settled) return;
          deadline = setTimeout(() => {
            if (proc.killedFor) return;
            killed.timeout++;
            const detail = `transform process killed after ${job.limits.timeoutMs + graceMs} ms`;
            proc.kill({ job: job.id, error: new AppError("TRANSFORM_TIMEOUT", { detail }) });
          }, job.limits.timeoutMs + graceMs);
          proc.child.send(job, (error) => {
            if (!error) return;
            const detail = "could not hand a job to a transform process";
            proc.kill({ job: null, error: new AppError("INTERNAL", { detail, cause: error }) });
          });
          // A process that never starts tells its jobs so itself (blame: not a job's doing).
        },
        () => undefined,
      );
    });
  }

  /** Whose fault a process's end was, for one of the jobs it held. */
  function blame(end: ProcessEnd, id: number, proc: TransformProcess): Outcome {
    const by = end.killedFor;
    if (!proc.started) {
      const detail = `transform process did not start (${end.detail})`;
      return { kind: "failed", error: new AppError("INTERNAL", { detail }) };
    }
    if (by?.job === id) return { kind: "failed", error: by.error };
    // Another job's timeout, or a kill or crash no one job can be blamed for: run it again, alone.
    // (A process running a job alone held that job only.)
    if ((by && by.job !== null) || end.held > 1) return { kind: "collateral" };
    if (by) return { kind: "failed", error: by.error };
    // A crash inside libvips on hostile bytes is the input's doing: it costs that request only.
    return { kind: "failed", error: new AppError("IMAGE_DECODE_FAILED", { detail: end.detail }) };
  }

  return {
    transform,
    stats: () => {
      const all = [...live.normal, ...live.background];
      return {
        processes: all.length,
        busyPids: all.filter((p) => p.jobs.size > 0 && p.child.pid !== undefined).map((p) => p.child.pid!),
        killed: { ...killed },
        retried,
      };
    },
    async close() {
      closed = true;
      const exits = [...live.normal, ...live.background].map(
        (proc) =>
          new Promise<void>((resolve) => {
            if (proc.child.exitCode !== null || proc.child.signalCode !== null) return resolve();
            proc.child.once("exit", () => resolve());
            proc.kill({ job: null, error: new AppError("NOT_READY", { detail: "transform pool closed" }) });
          }),
      );
      await Promise.all(exits);
      scratch.remove();
    },
  };
}

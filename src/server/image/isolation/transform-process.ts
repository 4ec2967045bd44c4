import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import { AppError } from "@/server/errors";
import type { JobPriority } from "../transform-scheduler";
import type { ChildSettings, JobReply } from "./protocol";

/** How a process ended, as far as its jobs are concerned. */
export interface ProcessEnd {
  /** The pool killed it, for this job (past its time budget), or for no one job (past the memory cap). */
  killedFor: { job: number | null; error: AppError } | null;
  /** What the exit said: a signal or an exit code. */
  detail: string;
  /** How many jobs it held when it ended. */
  held: number;
}

/** One job's handlers while it runs in a process. */
export interface RunningJob {
  reply(reply: JobReply): void;
  ended(end: ProcessEnd): void;
}

/**
 * Which jobs a process takes: `open`, any up to the pool's capacity; `solo`, the one retried job it
 * runs alone, nothing else; `retiring`, none (being killed, or grown large and ending with its last
 * job); `dead`, none ever again (exited, or never started). Only the methods below move it.
 */
export type ProcessState = "open" | "solo" | "retiring" | "dead";

/** The niceness a process runs at: extra and background jobs share the lowered one. */
export type Lane = "normal" | "background";

export const laneOf = (priority: JobPriority): Lane => (priority === "normal" ? "normal" : "background");

export interface TransformProcess {
  child: ChildProcess;
  lane: Lane;
  readonly state: ProcessState;
  /** It said it was ready: an exit before that is a failure to start, not a job's doing. */
  started: boolean;
  /** It was given a job that looks for faces: the detector, once loaded, stays in its memory. */
  holdsFaceDetector: boolean;
  ready: Promise<void>;
  /** The jobs running here, by id. */
  jobs: Map<number, RunningJob>;
  killedFor: ProcessEnd["killedFor"];
  idleTimer?: NodeJS.Timeout;
  watch?: NodeJS.Timeout;
  /** open → solo: it runs one retried job alone. */
  holdAlone(): void;
  /** solo → open, once that job is done. */
  reopen(): void;
  /** Takes no new job; ends once its jobs are done (the pool retires it then). */
  windDown(): void;
  /** Kills it for a reason its jobs are told (the first reason wins). */
  kill(reason: NonNullable<ProcessEnd["killedFor"]>): void;
  /** Ends it with no job to tell (idle, or grown large): it takes no new job from now on. */
  retire(): void;
}

export interface SpawnOptions {
  entry: string;
  settings: ChildSettings;
  env: Record<string, string>;
  nice: number;
  /** Called once, when the process is gone (after its jobs were told how many it held). */
  onGone(process: TransformProcess, held: number): void;
}

/**
 * Starts a transform process (child-main.ts). Only what a libvips process needs reaches it: no secret
 * or database URL gets to code that parses hostile bytes. When it exits, each job it held is told how
 * (ProcessEnd); the pool decides whose fault that was.
 */
export function spawnTransformProcess(lane: Lane, options: SpawnOptions): TransformProcess {
  if (!existsSync(options.entry)) {
    throw new AppError("INTERNAL", {
      detail: `transform worker not built: ${options.entry} (npm run build writes it)`,
    });
  }
  const child = fork(options.entry, [JSON.stringify(options.settings)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [],
    env: { NODE_ENV: "production", ...options.env },
  });
  if (options.nice > 0 && child.pid !== undefined) lowerPriority(child.pid, options.nice);
  let started!: () => void;
  let failed!: (error: AppError) => void;
  const ready = new Promise<void>((resolve, reject) => ((started = resolve), (failed = reject)));
  ready.catch(() => {});
  let state: ProcessState = "open";
  const proc: TransformProcess = {
    child,
    lane,
    get state() {
      return state;
    },
    started: false,
    holdsFaceDetector: false,
    ready,
    jobs: new Map(),
    killedFor: null,
    holdAlone() {
      if (state === "open") state = "solo";
    },
    reopen() {
      if (state === "solo") state = "open";
    },
    windDown() {
      if (state !== "dead") state = "retiring";
    },
    kill(reason) {
      proc.killedFor ??= reason;
      const gone = state === "dead";
      proc.windDown();
      child.kill("SIGKILL");
      // Already gone: no exit event will come to tell the jobs.
      if (gone) tellJobs("already exited");
    },
    retire() {
      proc.windDown();
      child.kill("SIGKILL");
    },
  };
  const tellJobs = (detail: string) => {
    const jobs = [...proc.jobs.values()];
    proc.jobs.clear();
    for (const job of jobs) job.ended({ killedFor: proc.killedFor, detail, held: jobs.length });
    return jobs.length;
  };
  const die = (detail: string) => {
    if (state === "dead") return;
    state = "dead";
    clearInterval(proc.watch);
    clearTimeout(proc.idleTimer);
    failed(new AppError("INTERNAL", { detail: `transform process did not start (${detail})` }));
    options.onGone(proc, tellJobs(detail));
  };
  child.on("message", (reply: JobReply | { ready: true }) => {
    if (!("id" in reply)) {
      proc.started = true;
      started();
    } else proc.jobs.get(reply.id)?.reply(reply);
  });
  child.on("exit", (code, signal) => die(`transform process exited (${signal ?? `code ${code}`})`));
  // A spawn that fails (EAGAIN, ENOENT) emits "error" and no "exit".
  child.on("error", (error) => {
    child.kill("SIGKILL");
    if (child.pid === undefined || child.exitCode !== null) die(`transform process failed: ${error.message}`);
  });
  return proc;
}

function lowerPriority(pid: number, nice: number): void {
  try {
    os.setPriority(pid, nice);
  } catch {
    // Not permitted here (some sandboxes): the job still runs, at normal priority.
  }
}

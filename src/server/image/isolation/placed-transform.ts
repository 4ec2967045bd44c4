import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { isAppError } from "@/server/errors";
import { bytesOf, type Transformer } from "../transformer";
import type { PlaceTransform } from "./placement";

export interface PlacedTransformOptions {
  /** The server's own process: sharp on libuv's pool. */
  inProcess: Transformer;
  /** The transform processes (process-pool.ts), spawned when a job needs one. */
  isolated: Transformer;
  /** The check (placement.ts: placeTransform), loaded with sharp on first use. */
  place: PlaceTransform;
  /**
   * A job in this process given more than this much time (ms) sends its source to the processes from
   * then on. Its time: while more jobs run here than there are cores, each is given its share of the
   * time that passed, so a job slowed by the others is not charged for them. Default 1 s.
   */
  budgetMs?: number;
  /** Cores the jobs here share. Default os.availableParallelism(). */
  cores?: number;
  /** Run before each job here (thread-nice.ts: the threads that run it give way to the requests). */
  beforeInProcess?: () => void;
  /** Sources remembered as having passed the budget. Default 4,096. */
  remembered?: number;
  now?: () => number;
}

export interface PlacedTransform {
  transform: Transformer;
  /** Jobs run here, and those sent to the processes by reason (`format`, `animation`, `jpeg scans`…). */
  stats(): { inProcess: number; isolated: Record<string, number> };
}

/**
 * Transforms in this process for inputs that cannot run away (placement.ts), in transform processes for
 * the rest: the speed and memory of an in-process optimizer for ordinary images, a kill for hostile ones.
 * Background jobs (a tenant's extra ones while another tenant has work, and work nobody waits for) go to
 * the processes, where they run niced; a lone tenant's extra jobs may run here (transform-scheduler.ts).
 * A job here that runs past the budget cannot be stopped (libvips' own time limit still ends it), but
 * its source is remembered and goes to the processes from then on; its time was its owner's slot's.
 */
export function createPlacedTransform(options: PlacedTransformOptions): PlacedTransform {
  const budgetMs = options.budgetMs ?? 1000;
  const capacity = options.remembered ?? 4096;
  const now = options.now ?? (() => performance.now());
  const share = createShareClock(options.cores ?? availableParallelism(), now);
  const overran = new Set<string>();
  const counts = { inProcess: 0, isolated: {} as Record<string, number> };

  const sendAway = (reason: string) => {
    counts.isolated[reason] = (counts.isolated[reason] ?? 0) + 1;
  };
  const remember = (key: string) => {
    overran.add(key);
    // Oldest first out: a Set iterates in insertion order.
    if (overran.size > capacity) overran.delete(overran.values().next().value!);
  };

  const transform: Transformer = async (input, ops, request, limits, priority) => {
    if (priority === "background") {
      sendAway("background");
      return options.isolated(input, ops, request, limits, priority);
    }
    const bytes = await bytesOf(input);
    // Hashed only when something was remembered, or is to be: most servers never remember a source.
    let hashed: string | undefined;
    const key = () => (hashed ??= sourceKey(bytes));
    const placement =
      overran.size > 0 && overran.has(key())
        ? ({ where: "isolated", reason: "overran before" } as const)
        : await options.place(bytes, ops, request, limits);
    if (placement.where === "isolated") {
      sendAway(placement.reason);
      return options.isolated(input, ops, request, limits, priority);
    }
    counts.inProcess++;
    options.beforeInProcess?.();
    const given = share.begin();
    try {
      return await options.inProcess(bytes, ops, request, limits, priority);
    } catch (error) {
      if (isAppError(error) && error.code === "TRANSFORM_TIMEOUT") remember(key());
      throw error;
    } finally {
      if (given() > budgetMs) remember(key());
    }
  };
  return { transform, stats: () => ({ inProcess: counts.inProcess, isolated: { ...counts.isolated } }) };
}

/**
 * Processor sharing: the time each running job is given, advancing at full speed while the jobs fit the
 * cores and at cores ÷ jobs beyond. `begin` returns, for the job it starts, a function that ends it and
 * says how much time it was given: called once, when the job settles.
 */
function createShareClock(cores: number, now: () => number) {
  let running = 0;
  let given = 0;
  let at = now();
  const advance = () => {
    const t = now();
    if (running > 0) given += (t - at) * Math.min(1, cores / running);
    at = t;
  };
  return {
    begin(): () => number {
      advance();
      running++;
      const from = given;
      return () => {
        advance();
        running--;
        return given - from;
      };
    },
  };
}

/** A source's identity for the memory above: its length and its first 64 KB (not a hash of all of it). */
function sourceKey(bytes: Buffer): string {
  return `${bytes.length}:${createHash("sha256").update(bytes.subarray(0, 65_536)).digest("base64url")}`;
}

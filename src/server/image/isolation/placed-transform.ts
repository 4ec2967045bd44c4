import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { isAppError } from "@/server/errors";
import type { Transformer } from "../transformer";
import type { PlaceTransform } from "./placement";

export interface PlacedTransformOptions {
  /** The server's own process: sharp on libuv's pool. */
  inProcess: Transformer;
  /** The transform processes (process-pool.ts), spawned when a job needs one. */
  isolated: Transformer;
  /** The check (placement.ts: placeTransform), loaded with sharp on first use. */
  place: PlaceTransform;
  /** A job in this process past this long (ms) sends its source to the processes from then on. Default 1 s. */
  budgetMs?: number;
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
 * A tenant's extra jobs (background priority) always go to the processes, where they run niced. A job
 * here that runs past the budget cannot be stopped (libvips' own time limit still ends it), but its
 * source is remembered and goes to the processes from then on; its time was its owner's slot's.
 */
export function createPlacedTransform(options: PlacedTransformOptions): PlacedTransform {
  const budgetMs = options.budgetMs ?? 1000;
  const capacity = options.remembered ?? 4096;
  const now = options.now ?? (() => performance.now());
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
    const bytes = Buffer.isBuffer(input) ? input : await readFile(input.path);
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
    const started = now();
    try {
      return await options.inProcess(bytes, ops, request, limits, priority);
    } catch (error) {
      if (isAppError(error) && error.code === "TRANSFORM_TIMEOUT") remember(key());
      throw error;
    } finally {
      if (now() - started > budgetMs) remember(key());
    }
  };
  return { transform, stats: () => ({ inProcess: counts.inProcess, isolated: { ...counts.isolated } }) };
}

/** A source's identity for the memory above: its length and its first 64 KB (not a hash of all of it). */
function sourceKey(bytes: Buffer): string {
  return `${bytes.length}:${createHash("sha256").update(bytes.subarray(0, 65_536)).digest("base64url")}`;
}

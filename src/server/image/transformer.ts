import { readFile } from "node:fs/promises";
import { transformImage, type TransformRequest } from "./pipeline";
import type { JobPriority } from "./transform-scheduler";
import type { ImageOperations, TransformLimits, TransformResult } from "./types";

/**
 * The source's bytes, or the file holding them (the source cache keeps originals in files), with its
 * bytes when they are in memory already (just downloaded): read from the file only without them.
 */
export type TransformInput = Buffer | { path: string; bytes?: Buffer };

/** The source's bytes, read from its file only when they are not in memory. */
export const bytesOf = async (input: TransformInput): Promise<Buffer> =>
  Buffer.isBuffer(input) ? input : (input.bytes ?? (await readFile(input.path)));

/**
 * Source bytes → output, wherever it runs: in this process (inProcessTransform) or in a transform
 * process that can be killed (isolation/process-pool.ts). The producer does not know which.
 */
export type Transformer = (
  input: TransformInput,
  ops: ImageOperations,
  request: TransformRequest,
  limits: TransformLimits,
  priority?: JobPriority,
) => Promise<TransformResult>;

export const inProcessTransform: Transformer = async (input, ops, request, limits) =>
  transformImage(await bytesOf(input), ops, request, limits);

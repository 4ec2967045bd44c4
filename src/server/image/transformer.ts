import { readFile } from "node:fs/promises";
import { transformImage, type TransformRequest } from "./pipeline";
import type { JobPriority } from "./transform-scheduler";
import type { ImageOperations, TransformLimits, TransformResult } from "./types";

/** The source's bytes, or the file holding them (the source cache keeps originals in files). */
export type TransformInput = Buffer | { path: string };

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
  transformImage(Buffer.isBuffer(input) ? input : await readFile(input.path), ops, request, limits);

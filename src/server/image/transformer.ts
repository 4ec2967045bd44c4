import type { TransformRequest } from "./pipeline";
import type { JobPriority } from "./scheduler";
import type { ImageOperations, TransformLimits, TransformResult } from "./types";

/**
 * Source bytes → output, wherever it runs: in this process (transformImage itself) or in a transform
 * process that can be killed (isolation/process-pool.ts). The producer does not know which.
 */
export type Transformer = (
  input: Buffer,
  ops: ImageOperations,
  request: TransformRequest,
  limits: TransformLimits,
  priority?: JobPriority,
) => Promise<TransformResult>;

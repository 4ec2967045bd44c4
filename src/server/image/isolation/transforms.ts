import type { LazyEngine } from "../lazy-transform";
import type { Transformer } from "../transformer";
import { createPlacedTransform, type PlacedTransform } from "./placed-transform";
import { createProcessPool, type ProcessPool, type TransformIsolation } from "./process-pool";
import { createThreadNice } from "./thread-nice";

/** Where transforms run: by input (placement.ts), all in transform processes, or all in this one. */
export type TransformPlacement = "by-input" | "process" | "none";

export interface Transforms {
  /** The image route's: placed by input when so configured. */
  transform: Transformer;
  /** Uploads' and previews' (rare, a tenant's own bytes): in a transform process whenever there are any. */
  isolated: Transformer;
  placement: TransformPlacement;
  /** Jobs run here and sent to the processes by reason; null unless placed by input. */
  placed: PlacedTransform["stats"] | null;
  /** The transform processes, closed with the services; null when none are ever spawned. */
  pool: ProcessPool | null;
}

/** The transforms the image route, uploads and previews run on, as the server is configured. */
export function createTransforms(
  isolation: TransformIsolation | null,
  engine: LazyEngine,
  processEnv: Record<string, string>,
): Transforms {
  if (!isolation) {
    return { transform: engine.transform, isolated: engine.transform, placement: "none", placed: null, pool: null };
  }
  // Spawned when the first job needs one, and gone after 30 s idle (process-pool.ts).
  const pool = createProcessPool({
    entry: isolation.entry,
    memoryLimitBytes: isolation.memoryLimitBytes,
    jobsPerProcess: isolation.jobsPerProcess,
    env: { ...isolation.env, ...processEnv },
    normalNice: isolation.nice,
  });
  const isolated = pool.transform;
  if (!isolation.byInput) return { transform: isolated, isolated, placement: "process", placed: null, pool };
  const placed = createPlacedTransform({
    inProcess: engine.transform,
    isolated,
    place: engine.place,
    beforeInProcess: createThreadNice(isolation.nice ?? 0),
  });
  return { transform: placed.transform, isolated, placement: "by-input", placed: placed.stats, pool };
}

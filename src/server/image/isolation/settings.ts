import path from "node:path";
import type { PlatformValues } from "@/server/config/platform-settings";
import type { ImageValues } from "../settings";
import type { TransformIsolation } from "./process-pool";

/** Written by scripts/build-transform-worker.mjs (`npm run build`, and the test setup). */
export const TRANSFORM_WORKER_ENTRY = "dist/transform-worker.mjs";

/**
 * Transform processes (null: transforms run in the server's process, as on Vercel by default); with
 * `auto`, only for the inputs that could run away in this process (placement.ts).
 * `childEnv` is what a transform process may see of the server's environment (env.ts: transformProcessEnv).
 */
export function transformIsolationOf(
  v: ImageValues & Pick<PlatformValues, "VERCEL">,
  childEnv: Record<string, string>,
): TransformIsolation | null {
  const isolation = v.OPTSTUFF_TRANSFORM_ISOLATION;
  if (isolation === "none" || (isolation === "auto" && v.VERCEL !== undefined)) return null;
  return {
    byInput: isolation === "auto",
    entry: path.resolve(TRANSFORM_WORKER_ENTRY),
    memoryLimitBytes: v.OPTSTUFF_TRANSFORM_MEMORY_MB * 2 ** 20,
    jobsPerProcess: v.OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS,
    env: childEnv,
    nice: v.OPTSTUFF_TRANSFORM_NICE,
  };
}

// Process-level settings for the app's server, applied by `npm start` (and by the benchmarks, so they
// measure what users run). They must be in the environment before Node starts: glibc reads
// MALLOC_ARENA_MAX at startup and libuv sizes its thread pool on first use.
import { availableParallelism } from "node:os";

/** Thread-pool threads kept free of transforms: DNS lookups, file reads and password hashing use them. */
const SPARE_POOL_THREADS = 4;

/**
 * - MALLOC_ARENA_MAX=2: every libuv thread running libvips would otherwise get its own malloc arena,
 *   and freed image buffers stay mapped in each: peak RSS was 50–165 MB lower with 2 (docs/benchmarks.md).
 * - UV_THREADPOOL_SIZE: each running transform holds a pool thread; libuv's default of 4 would leave
 *   DNS lookups of sources and sign-in's password hashing queued behind image work.
 * Values already in the environment win.
 */
export function serverEnv(env = process.env) {
  const transforms = Number(env.OPTSTUFF_TRANSFORM_CONCURRENCY) || 2 * availableParallelism();
  return {
    MALLOC_ARENA_MAX: "2",
    UV_THREADPOOL_SIZE: String(Math.min(1024, transforms + SPARE_POOL_THREADS)),
    ...env,
  };
}

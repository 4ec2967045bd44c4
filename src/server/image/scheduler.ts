import { availableParallelism } from "node:os";
import { AppError } from "@/server/errors";

export interface SchedulerOptions {
  /** Transforms running at once. Default: 2 × os.availableParallelism() (see OPTSTUFF_TRANSFORM_CONCURRENCY). */
  concurrency?: number;
  /** Transforms waiting for a slot; beyond that requests are refused at once with 503. Default 4 × concurrency. */
  maxQueue?: number;
}

export interface TransformScheduler {
  /** Runs `job` when a slot is free; a caller with the key of a job already queued or running shares it. */
  run<T>(key: string, job: () => Promise<T>): Promise<T>;
  stats(): { running: number; queued: number };
}

/** Bounds of the Retry-After hint, in seconds. */
const MIN_RETRY_AFTER = 1;
const MAX_RETRY_AFTER = 30;

/**
 * A bounded queue in front of the transforms: queueing more work than the CPUs can clear only adds
 * latency and memory (each waiting job holds its source bytes), so past `maxQueue` the server says
 * "busy" immediately and the client (or CDN) retries.
 */
export function createTransformScheduler(options: SchedulerOptions = {}): TransformScheduler {
  const concurrency = Math.max(1, options.concurrency ?? 2 * availableParallelism());
  const maxQueue = Math.max(0, options.maxQueue ?? concurrency * 4);
  const inflight = new Map<string, Promise<unknown>>();
  const waiting: Array<() => void> = [];
  let running = 0;
  let averageMs = 0;

  function start(job: () => Promise<unknown>, settle: (outcome: Promise<unknown>) => void): void {
    running++;
    const startedAt = performance.now();
    const outcome = Promise.resolve().then(job);
    settle(outcome);
    void outcome.then(done, done);
    function done(): void {
      running--;
      // A moving average of job time, only to size the Retry-After hint.
      const elapsed = performance.now() - startedAt;
      averageMs = averageMs === 0 ? elapsed : averageMs * 0.8 + elapsed * 0.2;
      waiting.shift()?.();
    }
  }

  function retryAfterSeconds(): number {
    const seconds = Math.ceil(((waiting.length + running) / concurrency) * (averageMs / 1000));
    return Math.min(MAX_RETRY_AFTER, Math.max(MIN_RETRY_AFTER, seconds));
  }

  return {
    run<T>(key: string, job: () => Promise<T>): Promise<T> {
      const shared = inflight.get(key);
      if (shared) return shared as Promise<T>;
      if (running >= concurrency && waiting.length >= maxQueue) {
        const retryAfter = String(retryAfterSeconds());
        return Promise.reject(
          new AppError("OVERLOADED", {
            detail: `transform queue full (${running} running, ${waiting.length} queued)`,
            headers: { "Retry-After": retryAfter },
          }),
        );
      }
      const result = new Promise<T>((resolve, reject) => {
        const begin = () => start(job, (outcome) => (outcome as Promise<T>).then(resolve, reject));
        if (running < concurrency) begin();
        else waiting.push(begin);
      });
      inflight.set(key, result);
      const forget = () => {
        if (inflight.get(key) === result) inflight.delete(key);
      };
      result.then(forget, forget);
      return result;
    },
    stats: () => ({ running, queued: waiting.length }),
  };
}

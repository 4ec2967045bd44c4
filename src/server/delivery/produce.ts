import type { ImageOperations, ResultCache, TransformLimits, TransformResult, Transformer, TransformScheduler } from "@/server/image";
import type { SourceFetcher, SourceLocation } from "@/server/source";

export interface Produced {
  result: TransformResult;
  /** Bytes of the source, when it was fetched for this request (not for cache hits). */
  sourceBytes: number | undefined;
  fetchMs: number;
  /** Waiting for a transform slot. */
  queueMs: number;
  /** Decode, resize and encode: one libvips pipeline, so one phase. */
  transformMs: number;
  /** Waiting on another request's job for the same variant ("shared"); that job's phases are its own. */
  waitMs: number;
  cache: "hit" | "miss" | "shared";
}

export interface ProducerDeps {
  fetcher: SourceFetcher;
  scheduler: TransformScheduler;
  /** In this process, or in a transform process that can be killed (services choose). */
  transform: Transformer;
  resultCache: ResultCache | null;
  limits: TransformLimits;
}

export interface ProduceInput {
  key: string;
  /**
   * Whose share of the transform slots and queue this counts against: the team, not the project, since
   * projects cost nothing to create and one tenant must not get a share per project.
   */
  tenant: string;
  location: SourceLocation;
  /** The project's source policy, asked again at every redirect hop. */
  mayFollow?: (url: URL) => boolean;
  operations: ImageOperations;
  accept: string | null;
  /**
   * Called by the request about to do the work, at a miss and before the fetch; never on a cache hit
   * nor by a request that shares another's job. Rate limits charge transforms here; throwing refuses
   * the work, and requests sharing the job see that refusal (withinLimits, ratelimit/, retries them).
   */
  admit?: () => Promise<void>;
}

export type Producer = (input: ProduceInput) => Promise<Produced>;

/**
 * Result cache, then one shared job per variant: concurrent identical requests wait on the first one's
 * fetch and transform instead of repeating them. Only the transform takes a scheduler slot: a slow
 * origin must not hold a CPU slot while it trickles bytes.
 */
export function createProducer(deps: ProducerDeps): Producer {
  const inflight = new Map<string, Promise<Produced>>();

  return async function produce(input) {
    const cached = deps.resultCache?.get(input.key);
    if (cached) return { result: cached, sourceBytes: undefined, fetchMs: 0, queueMs: 0, transformMs: 0, waitMs: 0, cache: "hit" };

    const running = inflight.get(input.key);
    if (running) {
      const joined = performance.now();
      const { result } = await running;
      return { result, sourceBytes: undefined, fetchMs: 0, queueMs: 0, transformMs: 0, waitMs: performance.now() - joined, cache: "shared" };
    }

    const job = fetchAndTransform(input, deps).finally(() => inflight.delete(input.key));
    inflight.set(input.key, job);
    return job;
  };
}

async function fetchAndTransform(input: ProduceInput, deps: ProducerDeps): Promise<Produced> {
  await input.admit?.();
  const fetchStart = performance.now();
  const source = await deps.fetcher.fetch(input.location, { mayFollow: input.mayFollow });
  const fetchMs = performance.now() - fetchStart;

  const queued = performance.now();
  let started = queued;
  const result = await deps.scheduler.run(input.tenant, (priority) => {
    started = performance.now();
    return deps.transform(source.bytes, input.operations, { accept: input.accept }, deps.limits, priority);
  });
  const transformMs = performance.now() - started;

  deps.resultCache?.set(input.key, result);
  return { result, sourceBytes: source.bytes.length, fetchMs, queueMs: started - queued, transformMs, waitMs: 0, cache: "miss" };
}

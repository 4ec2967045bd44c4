import type { Counters } from "@/server/coordination/counters";
import {
  jobCost,
  type ImageOperations,
  type ResultCache,
  type TransformLimits,
  type TransformResult,
  type Transformer,
  type TransformScheduler,
} from "@/server/image";
import type { Claim, SharedResults } from "@/server/result-store/shared-results";
import { createSingleFlight } from "@/server/single-flight";
import { redirectsWithin, type BucketSettings, type SourceFetcher, type SourceLocation } from "@/server/source";
import type { SourceCache, SourceFile } from "@/server/source/source-cache";
import { currentContext, recordSpan, traced, withinContext } from "@/server/telemetry/spans";
import { isSourceFailure, type SourceFailureMemory } from "./source-failures";

/** Which tier answered: in-process (hit), the result store (store), another request's job (shared), or a transform here (miss). */
export type ResultTier = "hit" | "store" | "shared" | "miss";

export interface Produced {
  result: TransformResult;
  /** Bytes of the source, when it was fetched for this request (not for cache hits). */
  sourceBytes: number | undefined;
  fetchMs: number;
  /** Waiting for a transform slot. */
  queueMs: number;
  /** Decode, resize and encode: one libvips pipeline, so one phase. */
  transformMs: number;
  /** Reading the result store, and waiting on another instance's transform of the same result. */
  storeMs: number;
  /** Waiting on another request's job for the same variant ("shared"); that job's phases are its own. */
  waitMs: number;
  cache: ResultTier;
  /** A transform's write-back to the result store (a miss with a store): true once the store kept it. */
  written?: Promise<boolean>;
}

export interface ProducerDeps {
  fetcher: SourceFetcher;
  /** Recently downloaded originals, so one source's widths share a download; null downloads every time. */
  sources: SourceCache | null;
  scheduler: TransformScheduler;
  /** In this process, or in a transform process that can be killed (services choose). */
  transform: Transformer;
  /** L1, in process. */
  resultCache: ResultCache | null;
  /** L2, durable and shared between instances; null when no store is configured. */
  results: SharedResults | null;
  /** Sources that failed a moment ago: their replays are answered without a fetch. */
  failures: SourceFailureMemory | null;
  counters: Counters;
  limits: TransformLimits;
}

/** What every job says, whatever its bytes come from. */
interface JobInput {
  /** The result's key in every tier (result-keys.ts). */
  key: string;
  /**
   * Whose share of the transform slots and queue this counts against: the account that owns the team
   * (config-cache/fair-share.ts), since projects and teams cost nothing to create.
   */
  tenant: string;
  /** Whose result it is in the store: the store evicts the largest team's results first. */
  team: string;
  operations: ImageOperations;
  accept: string | null;
  /** The project's watermark image, read only when a transform places it. */
  watermark?: () => Promise<Buffer>;
  /**
   * Called by the request about to do the work, at a miss and before the fetch; never on a cache hit
   * nor by a request that shares another's job. Rate limits charge transforms here; throwing refuses
   * the work, and requests sharing the job see that refusal (withinLimits, ratelimit/, retries them).
   */
  admit?: () => Promise<void>;
  /** Called when the admitted work failed at the source: the key gets back what `admit` charged. */
  refund?: () => void;
  /** Nobody waits for it (avif-later.ts): background priority, never the slot kept for idle tenants. */
  background?: boolean;
}

/** A URL's source, fetched (or read from the source cache) under the project's policy. */
export interface SourceInput extends JobInput {
  location: SourceLocation;
  /** The source cache's key (carries the purge generation and source policy). */
  sourceKey: string;
  /** The project's allowed source hosts, asked again at every redirect hop (contract §5). */
  sourceHosts?: readonly string[];
  /** A bucket location's settings, its secret opened only when the object is read. */
  bucket?: () => BucketSettings;
}

/** Bytes the project keeps (its fallback image): no fetcher, no source cache, no failure memory. */
export interface StoredInput extends JobInput {
  stored: () => Promise<Buffer>;
}

export type ProduceInput = SourceInput | StoredInput;

export interface Producer {
  (input: ProduceInput): Promise<Produced>;
  /** The result if it is already made (in process or in the store), without making it or claiming it. */
  peek(key: string): Promise<TransformResult | null>;
  /**
   * A result already made under another key (an interim answer that is final too, interim.ts), kept
   * under `key` in L1 and the store: no fetch, transform or charge.
   */
  keep(key: string, team: string, result: TransformResult): Promise<Produced>;
}

const none = { sourceBytes: undefined, fetchMs: 0, queueMs: 0, transformMs: 0, storeMs: 0, waitMs: 0 };

/**
 * L1, then one shared job per result: concurrent identical requests wait on the first one's job
 * instead of repeating it. The job reads the store, then (with a lease across instances) fetches and
 * transforms, and writes the result back after answering. Only the transform takes a scheduler slot:
 * a slow origin must not hold a CPU slot while it trickles bytes.
 */
export function createProducer(deps: ProducerDeps): Producer {
  const inflight = createSingleFlight<Produced>();

  async function once(key: string, team: string, make: () => Promise<Produced>): Promise<Produced> {
    const cached = deps.resultCache?.get(key);
    if (cached) {
      deps.counters.increment("result_tier_l1");
      return { ...none, result: cached, cache: "hit" };
    }

    const running = inflight.running(key);
    if (running) {
      const joined = performance.now();
      const { result, written } = await running;
      deps.counters.increment("result_tier_shared");
      return { ...none, result, written, waitMs: performance.now() - joined, cache: "shared" };
    }

    return inflight.run(key, () => fromStoreOrMake(key, team, make, deps));
  }

  const produce = (input: ProduceInput) =>
    once(input.key, input.team, async () => {
      const made = await fetchAndTransform(input, deps);
      deps.counters.increment("result_tier_transform");
      return made;
    });

  return Object.assign(produce, {
    keep: (key: string, team: string, result: TransformResult) =>
      once(key, team, async () => ({ ...none, result, cache: "miss" as const })),
    async peek(key: string): Promise<TransformResult | null> {
      const cached = deps.resultCache?.get(key);
      if (cached) return cached;
      const stored = deps.results ? await deps.results.read(key) : null;
      // Kept in L1, so the request that peeked is answered from it rather than reading the store again.
      if (stored) deps.resultCache?.set(key, stored);
      return stored;
    },
  });
}

/** The store's result, else `make`'s, written back to the store after it is answered. */
async function fromStoreOrMake(
  key: string,
  team: string,
  make: () => Promise<Produced>,
  deps: ProducerDeps,
): Promise<Produced> {
  const started = performance.now();
  const results = deps.results;
  const claim: Claim = results
    ? await traced("image.store.read", {}, async (span) => {
        const found = await results.lookup(key);
        span?.setAttribute("optstuff.store.hit", found.kind === "stored");
        return found;
      })
    : { kind: "make", release: () => undefined };
  // No store, no store phase (Server-Timing lists only what this request spent time on).
  const storeMs = deps.results ? performance.now() - started : 0;
  if (claim.kind === "stored") {
    deps.resultCache?.set(key, claim.result);
    deps.counters.increment("result_tier_store");
    return { ...none, result: claim.result, storeMs, cache: "store" };
  }
  try {
    const made = await make();
    deps.resultCache?.set(key, made.result);
    const written = results
      ? traced("image.store.write", {}, () => results.writeBack(key, made.result, claim, team))
      : undefined;
    return { ...made, storeMs, written };
  } catch (error) {
    claim.release();
    throw error;
  }
}

async function fetchAndTransform(input: ProduceInput, deps: ProducerDeps): Promise<Produced> {
  // Stored bytes (the fallback image) are the project's own: no source to remember.
  if ("stored" in input) {
    await input.admit?.();
    return transformAdmitted(input, () => input.stored(), deps);
  }
  const recalled = deps.failures?.recall(input.sourceKey);
  if (recalled) {
    deps.counters.increment("source_failure_recalled");
    throw recalled;
  }
  await input.admit?.();
  try {
    return await transformAdmitted(input, () => fetchSource(input, deps), deps);
  } catch (error) {
    if (deps.failures && isSourceFailure(error)) {
      input.refund?.();
      deps.failures.remember(input.sourceKey, error);
    }
    throw error;
  }
}

async function transformAdmitted(
  input: ProduceInput,
  read: () => Promise<Buffer | SourceFile>,
  deps: ProducerDeps,
): Promise<Produced> {
  const fetchStart = performance.now();
  const source = await read();
  try {
    const watermark = input.watermark ? await input.watermark() : undefined;
    const fetchMs = performance.now() - fetchStart;

    const queued = performance.now();
    let started = queued;
    // The scheduler starts a queued job from the callback of the one that finished: without this, its
    // spans would join that other request's trace.
    const trace = currentContext();
    const result = await deps.scheduler.run(
      input.tenant,
      (priority) =>
        withinContext(trace, () => {
          started = performance.now();
          recordSpan("image.transform.queue", queued, started, { "optstuff.priority": priority });
          return traced("image.transform", { "optstuff.priority": priority }, async (span) => {
            const made = await deps.transform(
              source,
              input.operations,
              { accept: input.accept, watermark },
              deps.limits,
              priority,
            );
            span?.setAttributes({ "optstuff.output_format": made.format, "optstuff.output_bytes": made.body.length });
            return made;
          });
        }),
      {
        background: input.background === true,
        cost: jobCost(input.operations),
        // A waiting job's source stays in its file only: the queue holds up to OPTSTUFF_TRANSFORM_QUEUE of them.
        onQueued: () => {
          if (!Buffer.isBuffer(source)) source.bytes = undefined;
        },
      },
    );
    const transformMs = performance.now() - started;
    const sourceBytes = Buffer.isBuffer(source) ? source.length : source.size;
    return { ...none, result, sourceBytes, fetchMs, queueMs: started - queued, transformMs, cache: "miss" };
  } finally {
    if (!Buffer.isBuffer(source)) source.release();
  }
}

/** The source cache's file, or without a cache the downloaded bytes. */
function fetchSource(input: SourceInput, deps: ProducerDeps): Promise<Buffer | SourceFile> {
  return traced("image.source.fetch", { "optstuff.source.kind": input.location.kind }, async (span) => {
    const fetched = await download(input, deps);
    span?.setAttribute("optstuff.source.bytes", Buffer.isBuffer(fetched) ? fetched.length : fetched.size);
    return fetched;
  });
}

async function download(input: SourceInput, deps: ProducerDeps): Promise<Buffer | SourceFile> {
  const options = {
    mayFollow: redirectsWithin(input.sourceHosts),
    // The same policy as data, for a download in another thread.
    sourceHosts: input.sourceHosts,
    bucket: input.bucket?.(),
  };
  if (!deps.sources) return (await deps.fetcher.fetch(input.location, options)).bytes;
  return (await deps.sources.fetch(input.sourceKey, input.location, options, deps.fetcher)).file;
}

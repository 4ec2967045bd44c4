import path from "node:path";
import type { CachedConfigStore } from "@/server/config-cache";
import type { Coordination } from "@/server/coordination/create-coordination";
import type { Counters } from "@/server/coordination/counters";
import { withTokenLeases } from "@/server/coordination/token-leases";
import type { DatabaseHandle } from "@/server/db/client";
import type { Logger, SampledLog } from "@/server/log";
import type { ResultStoreDeps } from "@/server/result-store/create-store";
import type { SecretBox } from "@/server/signing";
import { createResultCache, createTransformScheduler, fontEnvironment, lazyEngine } from "@/server/image";
import type { TransformScheduler } from "@/server/image";
import { createUploadCheck, uploadLimits, type UploadCheck } from "@/server/image/check-upload";
import { transformIsolationOf } from "@/server/image/isolation/settings";
import { createTransforms, type Transforms } from "@/server/image/isolation/transforms";
import { fontConfigOf, transformLimitsOf, type ImageValues } from "@/server/image/settings";
import { createAuthFailureGuard } from "@/server/ratelimit/auth-failure-guard";
import { addressLimitsOf } from "@/server/ratelimit/request-limits";
import { clientAddressesOf, type RateLimitValues } from "@/server/ratelimit/settings";
import { resultStoreOf, type ResultStoreValues } from "@/server/result-store/settings";
import { createResultStore } from "@/server/result-store/create-store";
import { createSharedResults, type SharedResults } from "@/server/result-store/shared-results";
import type { ResultStore } from "@/server/result-store/types";
import { createSourceFetcher } from "@/server/source";
import { DOWNLOAD_THREAD_ENTRY, fetchLimitsOf, localSourceRootOf, type SourceValues } from "@/server/source/settings";
import type { NetDeps } from "@/server/source";
import type { PlatformValues } from "@/server/config/platform-settings";
import type { ServerValues } from "@/server/config/server-settings";
import type { DatabaseValues } from "@/server/db/settings";
import { createDownloadThread } from "@/server/source/download-thread/download-thread";
import { createSourceCache } from "@/server/source/source-cache";
import type { DeliveryDeps } from "./delivery-types";
import type { PublicNames } from "./public-names";
import { createLaterQueue, type LaterQueue } from "./later-queue";
import { createOversize } from "./oversize";
import { createOperationsPreview, PREVIEW_SAMPLE, previewLimits, type PreviewOperations } from "./preview-operations";
import { createProducer } from "./produce";
import { createProjectImageLoader } from "./project-image-bytes";
import { createSourceFailureMemory } from "./source-failures";
import { responseMaxBytesOf, type DeliveryValues } from "./settings";

/** The longest a later job waits for the scheduler's room before it tries anyway (and may be refused). */
const LATER_MAX_WAIT_MS = 60_000;

/** The settings the plane reads: its modules' groups (each module's settings.ts), and the platform's. */
export type DeliverySettings = ImageValues &
  SourceValues &
  DeliveryValues &
  ResultStoreValues &
  RateLimitValues &
  Pick<PlatformValues, "VERCEL"> &
  Pick<DatabaseValues, "DATABASE_URL"> &
  Pick<ServerValues, "OPTSTUFF_DATA_DIR">;

/** What is injected rather than configured. */
export interface DeliverySeams {
  /** Network seams for the source fetcher (tests): the download thread is not used with them. */
  net?: NetDeps;
  /** The photo previews are made of (the committed demo photo unless a test says otherwise). */
  previewSample?: string;
  /** What a transform process may see of this one's environment (env.ts: transformProcessEnv). */
  childEnv: Record<string, string>;
}

/** What the plane takes of the clients every plane shares (shared.ts). */
export interface DeliveryShared {
  database: DatabaseHandle;
  secrets: { keyEncryption: string };
  counters: Counters;
  coordination: Coordination;
  config: CachedConfigStore;
  secretBox: SecretBox;
  publicNames: PublicNames;
  logger: Logger;
  logSampled: SampledLog;
  now: () => Date;
  /** Each project's team, for the store's shares (tenancy/projects.ts). */
  teamsOf: ResultStoreDeps["teamsOf"];
}

/** What the image route and the dashboard's image work (uploads, previews) run on. */
export interface DeliveryPlane {
  /** What the image route serves with (serve-image.ts). */
  route: DeliveryDeps;
  /** The durable result store behind L1, and the lease that makes each result once; null without a store. */
  results: SharedResults | null;
  /** Decodes an uploaded image (watermark, fallback) in a transform process, under its team's share. */
  checkUpload: UploadCheck;
  /** The sample photo as a project's operations make it, for the preset editor and watermark placement. */
  previewOperations: PreviewOperations;
  /** Where transforms run (by input, killable child processes, or this process), and where they ran. */
  transforms: Pick<Transforms, "placement" | "placed">;
  /** For the metrics: the transform slots and queue, the later queue, the store's counts. */
  scheduler: TransformScheduler;
  laterQueue: LaterQueue;
  store: ResultStore | null;
  /** Closed when the services close, after the request log drains. */
  closers: Array<{ close(): Promise<void> | void } | null>;
}

/**
 * Transforms (in this process or in killable ones), the result store and its lease, the source
 * fetcher and cache, the producer and the later queue, wired for the image route; the same scheduler
 * and transforms decode uploads and draw previews, so they are bounded and shared fairly too.
 */
export async function createDeliveryPlane(
  env: DeliverySettings,
  shared: DeliveryShared,
  seams: DeliverySeams,
): Promise<DeliveryPlane> {
  const { database, counters, coordination, logger, logSampled, now } = shared;
  const limits = transformLimitsOf(env);
  const fetchLimits = fetchLimitsOf(env);
  const fontConfigFile = fontConfigOf(env);
  const resultCacheBytes = env.OPTSTUFF_RESULT_CACHE_BYTES;
  // sharp loads with the first transform made or placed in this process, if any.
  const engine = lazyEngine({ fontConfigFile });
  const scheduler = createTransformScheduler({
    concurrency: env.OPTSTUFF_TRANSFORM_CONCURRENCY,
    maxQueue: env.OPTSTUFF_TRANSFORM_QUEUE,
    fairShare: env.OPTSTUFF_TRANSFORM_FAIR_SHARE === "on",
  });
  const transforms = createTransforms(
    transformIsolationOf(env, seams.childEnv),
    engine,
    fontEnvironment(fontConfigFile),
  );
  const { transform } = transforms;
  const storeSettings = resultStoreOf(env);
  const store = storeSettings
    ? await createResultStore(storeSettings, {
        masterSecret: shared.secrets.keyEncryption,
        teamsOf: shared.teamsOf,
      })
    : null;
  // The lease needs a Redis every instance shares; in process, in-flight sharing already coalesces.
  const results = store ? createSharedResults({ store, redis: coordination.redis, counters, logSampled }) : null;
  // One final answer made after its interim one at a time per process, at background priority (later-queue.ts).
  const laterQueue = createLaterQueue({
    concurrency: 1,
    perTenant: 256,
    roomFor: (tenant) => scheduler.whenRoomForBackground(tenant, LATER_MAX_WAIT_MS),
  });
  // Injected network seams (tests) reach only this thread's fetcher. Vercel's functions do not carry
  // the thread's script (as for the transform processes).
  const downloads =
    env.VERCEL === undefined && !seams.net
      ? createDownloadThread({ entry: path.resolve(DOWNLOAD_THREAD_ENTRY), limits: fetchLimits })
      : null;
  const sources = env.OPTSTUFF_SOURCE_CACHE_BYTES
    ? createSourceCache({ maxBytes: env.OPTSTUFF_SOURCE_CACHE_BYTES, downloader: downloads?.download })
    : null;
  const produce = createProducer({
    fetcher: createSourceFetcher({
      limits: fetchLimits,
      localRoot: localSourceRootOf(env, env.DATABASE_URL === undefined),
      net: seams.net,
    }),
    sources,
    scheduler,
    transform,
    resultCache: resultCacheBytes > 0 ? createResultCache({ maxBytes: resultCacheBytes }) : null,
    results,
    failures: createSourceFailureMemory({ now: () => now().getTime() }),
    counters,
    limits,
  });
  const responseMaxBytes = responseMaxBytesOf(env);
  const projectImages = createProjectImageLoader(database.db);
  return {
    route: {
      config: shared.config,
      secretBox: shared.secretBox,
      produce,
      // Made later means served later from a cache: with neither cache nor store it never would be.
      later:
        resultCacheBytes > 0 || results
          ? {
              avif: { minPixels: env.OPTSTUFF_AVIF_LATER_MIN_PIXELS, maxPixels: limits.maxAvifPixels },
              quality: env.OPTSTUFF_QUALITY_LATER === "on",
              queue: laterQueue,
            }
          : null,
      oversize: responseMaxBytes ? createOversize({ maxBytes: responseMaxBytes, store, now }) : null,
      projectImages,
      publicNames: shared.publicNames,
      logger,
      now,
      limits: {
        // Reserved a few tokens at a time where the limiter is shared (each call a round trip); in process
        // every call is free and exact.
        limiter: coordination.redis
          ? withTokenLeases(coordination.limiter, () => now().getTime())
          : coordination.limiter,
        guard: createAuthFailureGuard({
          maxFailuresPerMinute: env.OPTSTUFF_AUTH_FAILURES_PER_MINUTE,
          now: () => now().getTime(),
        }),
        clientAddresses: clientAddressesOf(env),
        counters,
        logSampled,
        addressLimits: addressLimitsOf(env),
      },
    },
    results,
    // Uploads are decoded in a transform process under the same scheduler: bounded, killable, shared fairly.
    checkUpload: createUploadCheck({ scheduler, transform: transforms.isolated, limits: uploadLimits(limits) }),
    previewOperations: createOperationsPreview({
      config: shared.config,
      projectImages,
      scheduler,
      transform: transforms.isolated,
      limits: previewLimits(limits),
      samplePath: seams.previewSample ?? path.resolve(PREVIEW_SAMPLE),
    }),
    transforms: { placement: transforms.placement, placed: transforms.placed },
    scheduler,
    laterQueue,
    store,
    closers: [store, transforms.pool, downloads, sources],
  };
}

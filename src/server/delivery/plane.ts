import path from "node:path";
import type { CachedConfigStore } from "@/server/config-cache";
import type { Coordination } from "@/server/coordination/create-coordination";
import type { Counters } from "@/server/coordination/counters";
import type { DatabaseHandle } from "@/server/db/client";
import type { TransformLimits } from "@/server/image";
import type { Logger, SampledLog } from "@/server/log";
import type { ClientAddressPolicy } from "@/server/ratelimit/client-address";
import type { AddressLimits } from "@/server/ratelimit/request-limits";
import type { ResultStoreDeps } from "@/server/result-store/create-store";
import type { ResultStoreSettings } from "@/server/result-store/types";
import type { SecretBox } from "@/server/signing";
import type { FetchLimits, NetDeps } from "@/server/source";
import { createResultCache, createTransformScheduler, fontEnvironment, lazyInProcessTransform } from "@/server/image";
import type { TransformScheduler } from "@/server/image";
import { createUploadCheck, uploadLimits, type UploadCheck } from "@/server/image/check-upload";
import { createProcessPool, type TransformIsolation } from "@/server/image/isolation/process-pool";
import { createAuthFailureGuard } from "@/server/ratelimit/auth-failure-guard";
import { directClients } from "@/server/ratelimit/client-address";
import { DEFAULT_ADDRESS_LIMITS } from "@/server/ratelimit/request-limits";
import { createResultStore } from "@/server/result-store/create-store";
import { createSharedResults, type SharedResults } from "@/server/result-store/shared-results";
import type { ResultStore } from "@/server/result-store/types";
import { createSourceFetcher } from "@/server/source";
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

/** The longest a later job waits for the scheduler's room before it tries anyway (and may be refused). */
const LATER_MAX_WAIT_MS = 60_000;

/** The delivery plane's settings (service-options.ts maps them from the environment). */
export interface DeliveryOptions {
  secrets: { keyEncryption: string };
  fetchLimits: FetchLimits;
  transformLimits: TransformLimits;
  localSourceRoot: string | null;
  /** The photo previews are made of (the committed demo photo unless a test says otherwise). */
  previewSamplePath?: string;
  transformConcurrency: number;
  /** Share transform slots and queue fairly between accounts (the owners of teams). Default true. */
  transformFairShare?: boolean;
  /** Transforms in killable child processes (the built worker script); null runs them in this process. */
  transformIsolation: TransformIsolation | null;
  transformQueue: number;
  resultCacheBytes: number;
  /** delivery/avif-later.ts: the predicted output size from which a cold AVIF is answered WebP first; 0 never. */
  avifLaterMinPixels?: number;
  /** delivery/interim.ts: q_auto and f_best answer the format's default quality first, the search after. */
  qualityLater?: boolean;
  /** The fontconfig file SVG text is drawn with (image/configure-sharp.ts); null: the machine's fonts. */
  fontConfigFile?: string | null;
  /**
   * The largest image body answered directly; larger ones are redirected to the result bucket or
   * refused (delivery/oversize.ts). 0 or absent: no cap.
   */
  responseMaxBytes?: number;
  /** Durable results (files or an S3-compatible bucket); null keeps results in memory only. */
  resultStore?: ResultStoreSettings | null;
  /** Recently downloaded sources kept (in files on tmpfs), in bytes; 0 or absent downloads every time. */
  sourceCacheBytes?: number;
  /**
   * The built download thread script: remote sources are downloaded in a worker thread straight into
   * the source cache's files. Null (or absent, or with `net` injected) downloads on the server's thread.
   */
  sourceDownloadThread?: string | null;
  /** Authentication failures per client address and minute before it is refused for the minute. */
  authFailuresPerMinute: number;
  /** Who a client is: proxies in front, Vercel's edge, a CDN with its secret. Default: the socket's address. */
  clientAddresses?: ClientAddressPolicy;
  /** Image requests and transforms per client address and minute (0 turns one off). */
  addressLimits?: AddressLimits;
  /** Network seams for the source fetcher (tests): the download thread is not used with them. */
  net?: NetDeps;
}

/** What the plane takes of the clients every plane shares (shared.ts). */
export interface DeliveryShared {
  database: DatabaseHandle;
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
  delivery: DeliveryDeps;
  /** The durable result store behind L1, and the lease that makes each result once; null without a store. */
  results: SharedResults | null;
  /** Decodes an uploaded image (watermark, fallback) in a transform process, under its team's share. */
  checkUpload: UploadCheck;
  /** The sample photo as a project's operations make it, for the preset editor and watermark placement. */
  previewOperations: PreviewOperations;
  /** Where transforms run: killable child processes, or this process. */
  transformIsolation: "process" | "none";
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
export async function createDeliveryPlane(options: DeliveryOptions, shared: DeliveryShared): Promise<DeliveryPlane> {
  const { database, counters, coordination, logger, logSampled, now } = shared;
  // sharp loads with the first transform made in this process, if any (none with transform processes).
  const inProcessTransform = lazyInProcessTransform({ fontConfigFile: options.fontConfigFile });
  const scheduler = createTransformScheduler({
    concurrency: options.transformConcurrency,
    maxQueue: options.transformQueue,
    fairShare: options.transformFairShare ?? true,
  });
  const isolation = options.transformIsolation;
  const pool = isolation
    ? createProcessPool({
        entry: isolation.entry,
        memoryLimitBytes: isolation.memoryLimitBytes,
        jobsPerProcess: isolation.jobsPerProcess,
        env: { ...isolation.env, ...fontEnvironment(options.fontConfigFile) },
        normalNice: isolation.nice,
      })
    : null;
  const transform = pool?.transform ?? inProcessTransform;
  const store = options.resultStore
    ? await createResultStore(options.resultStore, {
        masterSecret: options.secrets.keyEncryption,
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
  // Injected network seams (tests) reach only this thread's fetcher.
  const downloads =
    options.sourceDownloadThread && !options.net
      ? createDownloadThread({ entry: options.sourceDownloadThread, limits: options.fetchLimits })
      : null;
  const sources = options.sourceCacheBytes
    ? createSourceCache({ maxBytes: options.sourceCacheBytes, downloader: downloads?.download })
    : null;
  const produce = createProducer({
    fetcher: createSourceFetcher({ limits: options.fetchLimits, localRoot: options.localSourceRoot, net: options.net }),
    sources,
    scheduler,
    transform,
    resultCache: options.resultCacheBytes > 0 ? createResultCache({ maxBytes: options.resultCacheBytes }) : null,
    results,
    failures: createSourceFailureMemory({ now: () => now().getTime() }),
    counters,
    limits: options.transformLimits,
  });
  const projectImages = createProjectImageLoader(database.db);
  return {
    delivery: {
      config: shared.config,
      secretBox: shared.secretBox,
      produce,
      // Made later means served later from a cache: with neither cache nor store it never would be.
      later:
        options.resultCacheBytes > 0 || results
          ? {
              avif: { minPixels: options.avifLaterMinPixels ?? 0, maxPixels: options.transformLimits.maxAvifPixels },
              quality: options.qualityLater ?? false,
              queue: laterQueue,
            }
          : null,
      oversize: options.responseMaxBytes ? createOversize({ maxBytes: options.responseMaxBytes, store, now }) : null,
      projectImages,
      publicNames: shared.publicNames,
      logger,
      now,
      limits: {
        limiter: coordination.limiter,
        guard: createAuthFailureGuard({
          maxFailuresPerMinute: options.authFailuresPerMinute,
          now: () => now().getTime(),
        }),
        clientAddresses: options.clientAddresses ?? directClients,
        counters,
        logSampled,
        addressLimits: options.addressLimits ?? DEFAULT_ADDRESS_LIMITS,
      },
    },
    results,
    // Uploads are decoded where sources are, under the same scheduler: bounded, killable, shared fairly.
    checkUpload: createUploadCheck({ scheduler, transform, limits: uploadLimits(options.transformLimits) }),
    previewOperations: createOperationsPreview({
      config: shared.config,
      projectImages,
      scheduler,
      transform,
      limits: previewLimits(options.transformLimits),
      samplePath: options.previewSamplePath ?? path.resolve(PREVIEW_SAMPLE),
    }),
    transformIsolation: pool ? "process" : "none",
    scheduler,
    laterQueue,
    store,
    closers: [store, pool, downloads, sources],
  };
}

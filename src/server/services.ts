import path from "node:path";
import { env as readEnv } from "@/env";
import type { Secrets } from "@/server/config/secrets";
import {
  createConfigInvalidator,
  createDatabaseConfigStore,
  createMemoryTier,
  createRedisTier,
  type CachedConfigStore,
  type ConfigInvalidator,
} from "@/server/config-cache";
import { createCoordination, type Coordination } from "@/server/coordination/create-coordination";
import { createCounters, type Counters } from "@/server/coordination/counters";
import type { Auth, AuthOptions } from "@/server/auth/create-auth";
import { enabledProviders } from "@/server/auth/providers";
import { createSignInFailureLimit, type SignInFailureLimit } from "@/server/auth/sign-in-failures";
import { createMailer, type Mailer } from "@/server/mail/mailer";
import { auditSettings } from "@/server/audit/settings";
import { recordSignIn } from "@/server/audit/sign-ins";
import type { TenancyBase } from "@/server/tenancy/deps";
import { setUpNewAccount } from "@/server/tenancy/onboarding";
import { adoptOwnerlessTeams } from "@/server/tenancy/teams";
import {
  admitAccount,
  defaultRegistrationPolicy,
  findInstanceOwner,
  isFirstAccount,
  lockAccountCreation,
  type RegistrationPolicy,
} from "@/server/tenancy/registration";
import { createAuthFailureGuard } from "@/server/ratelimit/auth-failure-guard";
import { createDashboardAdmission, type DashboardAdmission } from "@/server/ratelimit/dashboard-admission";
import { createAccountLanes, type AccountLanes } from "@/server/ratelimit/account-lanes";
import { createDashboardReads, type DashboardReads } from "@/server/db/dashboard-reads";
import { DEFAULT_ADDRESS_LIMITS } from "@/server/ratelimit/request-limits";
import { createOutcomeRecorder } from "@/server/usage/record-outcome";
import { createCronJobs, type CronJobs } from "@/server/cron/jobs";
import { createMetrics, type Metrics } from "@/server/metrics/metrics";
import { createLaterQueue } from "@/server/delivery/later-queue";
import { scheduleOnDemand } from "@/server/cron/cron-clock";
import { createRequestLog, defaultRequestLogOptions, type RequestLog } from "@/server/usage/request-log";
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from "@/server/db/client";
import { createProducer } from "@/server/delivery/produce";
import { createUploadCheck, type UploadCheck } from "@/server/image/check-upload";
import { uploadLimits } from "@/server/tenancy/project-images";
import { createSourceFailureMemory } from "@/server/delivery/source-failures";
import { createProjectImageLoader } from "@/server/delivery/project-image-bytes";
import {
  createOperationsPreview,
  PREVIEW_SAMPLE,
  previewLimits,
  type PreviewOperations,
} from "@/server/delivery/preview-operations";
import { createPublicNames, type PublicNames } from "@/server/delivery/public-names";
import type { DeliveryDeps, RequestOutcome } from "@/server/delivery/serve-image";
import { createResultCache, createTransformScheduler, fontEnvironment, lazyInProcessTransform } from "@/server/image";
import { createProcessPool } from "@/server/image/isolation/process-pool";
import { directClients } from "@/server/ratelimit/client-address";
import { createLogger, createSampledLogger, describeError, type Logger } from "@/server/log";
import {
  serviceOptionsFromEnv,
  type Deployment,
  type MetricsAccess,
  type ServiceOptions,
} from "@/server/service-options";
import { shutDown } from "@/server/shutdown";
import { createSecretBox, type SecretBox } from "@/server/signing";
import { createSourceFetcher } from "@/server/source";
import { createSourceCache } from "@/server/source/source-cache";
import { createDownloadThread } from "@/server/source/download-thread/download-thread";
import { createOversize } from "@/server/delivery/oversize";
import { createResultStore } from "@/server/result-store/create-store";
import { teamsOfProjects } from "@/server/tenancy/projects";
import { stopTracing } from "@/server/telemetry/spans";
import { lazyOnce } from "@/server/lazy-once";
import { createSharedResults, type SharedResults } from "@/server/result-store/shared-results";

/** The longest a later job waits for the scheduler's room before it tries anyway (and may be refused). */
const LATER_MAX_WAIT_MS = 60_000;

/** Everything the app needs, built once. Tests build their own through createServices. */
export interface Services {
  database: DatabaseHandle;
  secrets: Secrets;
  secretBox: SecretBox;
  /** Keyed ETag and Cache-Tag names: what image responses carry and purges answer with. */
  publicNames: PublicNames;
  config: CachedConfigStore;
  invalidate: ConfigInvalidator;
  coordination: Coordination;
  counters: Counters;
  logger: Logger;
  delivery: DeliveryDeps;
  /** The durable result store behind L1, and the lease that makes each result once; null without a store. */
  results: SharedResults | null;
  /**
   * better-auth, loaded and built by the first request that needs it (a sign-in, a dashboard page):
   * the image API's and the cron routes' cold starts do not pay for it.
   */
  auth(): Promise<Auth>;
  /** Wrong passwords per account and quarter hour, shared by every instance (Redis). */
  signInFailures: SignInFailureLimit;
  /** The dashboard's per-account and per-team windows (changes, purges, slug checks, uploads). */
  admission: DashboardAdmission;
  /** Where the dashboard's reads of logs and statistics run (a time limit on PostgreSQL). */
  dashboardReads: DashboardReads;
  /** One heavy dashboard read at a time per account. */
  readLanes: AccountLanes;
  /** Null without SMTP: invitation links are shown to copy. */
  mailer: Mailer | null;
  /** Without an actor: each caller binds one (src/server/audit/trail.ts). */
  tenancy: TenancyBase;
  /** Origin of this server in printed URLs, snippets and the auth cookies. */
  publicBaseUrl: string;
  authProviders: Array<"github" | "google">;
  /** Who may create an account (the sign-up page shows what it allows). */
  registration: RegistrationPolicy;
  /** Where transforms run as built: killable child processes, or this process (the startup summary says which). */
  transformIsolation: "process" | "none";
  /** Runs after the response: never slows or fails the request it describes. */
  recordOutcome(outcome: RequestOutcome): Promise<void>;
  requestLog: RequestLog;
  metrics: Metrics;
  /** Origins whose pages may post dashboard mutations: the public base URL's and OPTSTUFF_TRUSTED_ORIGINS. */
  dashboardOrigins: string[];
  /** Decodes an uploaded image (watermark, fallback) in a transform process, under its team's share. */
  checkUpload: UploadCheck;
  /** The sample photo as a project's operations make it, for the preset editor and watermark placement. */
  previewOperations: PreviewOperations;
  /** Who may read /api/metrics (service-options.ts). */
  metricsAccess: MetricsAccess;
  /** How this instance runs (/api/health says it). */
  deployment: Deployment;
  cron: CronJobs;
  /** Runs the cron jobs on their schedule in this process (servers only; close() stops it). */
  startScheduler(): void;
  /** Drains the request log and, when usage is buffered in the database (no Redis), flushes all of it. */
  close(): Promise<void>;
}

export async function createServices(options: ServiceOptions): Promise<Services> {
  const logger = options.logger ?? createLogger();
  const database =
    "db" in options.database
      ? options.database
      : await openDatabase(owned(options.database, options.databaseProcess, logger));
  const counters = createCounters();
  const logSampled = createSampledLogger(logger);
  const secretBox = createSecretBox(options.secrets.keyEncryption, options.secrets.keyEncryptionPrevious);
  const publicNames = createPublicNames(options.secrets.keyEncryption);
  const coordination = createCoordination(options.redis, { counters, maxAddresses: options.addressWindowsMax });
  const { kv, redis } = coordination;
  const truth = createDatabaseConfigStore(database.db);
  // L1 → Redis → Postgres; in process the Redis tier would only duplicate L1.
  const behindL1 = redis ? createRedisTier(truth, { kv: redis, logSampled, counters }) : truth;
  const config = createMemoryTier(behindL1, {
    ttlMs: options.configCacheTtlMs,
    maxEntries: 10_000,
    onLookup: (result) => counters.increment(`config_l1_${result}`),
  });
  const invalidate = createConfigInvalidator({
    l1: config,
    kv: redis,
    logger,
    counters,
  });
  // sharp loads with the first transform made in this process, if any (none with transform processes).
  const inProcessTransform = lazyInProcessTransform({ fontConfigFile: options.fontConfigFile });
  const transforms = createTransformScheduler({
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
  const store = options.resultStore
    ? await createResultStore(options.resultStore, {
        masterSecret: options.secrets.keyEncryption,
        teamsOf: (ids) => teamsOfProjects(database, ids),
      })
    : null;
  // The lease needs a Redis every instance shares; in process, in-flight sharing already coalesces.
  const results = store ? createSharedResults({ store, redis, counters, logSampled }) : null;
  // One final answer made after its interim one at a time per process, at background priority (later-queue.ts).
  const laterQueue = createLaterQueue({
    concurrency: 1,
    perTenant: 256,
    roomFor: (tenant) => transforms.whenRoomForBackground(tenant, LATER_MAX_WAIT_MS),
  });
  const metrics = createMetrics({
    counters,
    scheduler: transforms,
    later: laterQueue,
    store,
    limiterWindows: coordination.windows,
  });
  // Injected network seams (tests) reach only this thread's fetcher.
  const downloads =
    options.sourceDownloadThread && !options.net
      ? createDownloadThread({ entry: options.sourceDownloadThread, limits: options.fetchLimits })
      : null;
  const sources = options.sourceCacheBytes
    ? createSourceCache({ maxBytes: options.sourceCacheBytes, downloader: downloads?.download })
    : null;
  const now = options.now ?? (() => new Date());
  // Uploads are decoded where sources are, under the same scheduler: bounded, killable, shared fairly.
  const checkUpload = createUploadCheck({
    scheduler: transforms,
    transform: pool?.transform ?? inProcessTransform,
    limits: uploadLimits(options.transformLimits),
  });
  const fetcher = createSourceFetcher({
    limits: options.fetchLimits,
    localRoot: options.localSourceRoot,
    net: options.net,
  });
  const produce = createProducer({
    fetcher,
    sources,
    scheduler: transforms,
    transform: pool?.transform ?? inProcessTransform,
    resultCache: options.resultCacheBytes > 0 ? createResultCache({ maxBytes: options.resultCacheBytes }) : null,
    results,
    failures: createSourceFailureMemory({ now: () => now().getTime() }),
    counters,
    limits: options.transformLimits,
  });
  const delivery: DeliveryDeps = {
    config,
    secretBox,
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
    projectImages: createProjectImageLoader(database.db),
    publicNames,
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
  };
  const previewOperations = createOperationsPreview({
    config,
    projectImages: delivery.projectImages,
    scheduler: transforms,
    transform: pool?.transform ?? inProcessTransform,
    limits: previewLimits(options.transformLimits),
    samplePath: options.previewSamplePath ?? path.resolve(PREVIEW_SAMPLE),
  });
  // Without a shared Redis, usage is buffered in the database with the request log: it survives a crash.
  const requestLog = createRequestLog(
    { db: database.db, kv, counters, logSampled, metersUsage: redis === null },
    { ...defaultRequestLogOptions, ...options.requestLog },
  );
  const mailer = createMailer(options.smtp ?? null);
  const publicBaseUrl = (options.publicBaseUrl ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const oauth = options.oauth ?? { github: null, google: null };
  const registration = options.registration ?? defaultRegistrationPolicy;
  const authOptions: AuthOptions = {
    db: database.db,
    secret: options.secrets.auth,
    baseUrl: publicBaseUrl,
    trustedOrigins: options.trustedOrigins ?? [],
    limiter: coordination.limiter,
    ...oauth,
    onUserCreated: (account, origin) => setUpNewAccount({ db: database.db, now }, account, origin),
    // The instance's owner adopts the teams nobody can see at each sign-in: a team whose last member's
    // account is gone, or one the command line made later without an owner (the quickstart's demo,
    // made before any account existed, is adopted when the owner's account is created: onboarding.ts).
    onSignedIn: async (session) => {
      try {
        const audit = await recordSignIn({ db: database.db, now }, session);
        if (!audit || (await findInstanceOwner(database))?.id !== session.userId) return;
        const adopted = await adoptOwnerlessTeams({ db: database.db, audit }, session.userId);
        if (adopted.length > 0)
          logger.log("info", "the instance owner adopted teams nobody belonged to", { teams: adopted });
      } catch (error) {
        // The sign-in has happened: its entry or the adoption is missed, the next sign-in tries again.
        logger.log(
          "error",
          "after a sign-in, its audit entry or adopting ownerless teams failed",
          describeError(error),
        );
      }
    },
    logger,
    registration: {
      admit: (candidate, db) => admitAccount({ db, now }, registration, candidate),
      isFirstAccount: (db) => isFirstAccount({ db }),
      lockAccountCreation: (db) => lockAccountCreation({ db }),
    },
  };
  const loadAuth = lazyOnce(async (): Promise<Auth> => {
    const { createAuth } = await import("@/server/auth/create-auth");
    return createAuth(authOptions);
  });
  const cron = createCronJobs({
    db: database.db,
    kv,
    redis,
    invalidate,
    logger,
    now,
    store,
    auditRetentionDays: options.auditRetentionDays ?? auditSettings.settings.OPTSTUFF_AUDIT_RETENTION_DAYS.default,
    tendsTables: database.kind === "pglite",
    alerts: {
      limiter: coordination.limiter,
      mailer,
      secretBox,
      // Its own bucket clients: probing every bucket must not push out those the image route uses.
      fetcher: createSourceFetcher({
        limits: options.fetchLimits,
        localRoot: options.localSourceRoot,
        net: options.net,
      }),
      dashboardUrl: publicBaseUrl,
    },
    schedule: () => scheduler.options(),
  });
  const scheduler = scheduleOnDemand(cron, logger);
  const tenancy: TenancyBase = {
    db: database.db,
    invalidate,
    secretBox,
    hostPolicy: { allowLoopback: options.fetchLimits.allowLoopback },
    now,
  };
  return {
    database,
    secrets: options.secrets,
    checkUpload,
    previewOperations,
    auth: loadAuth,
    mailer,
    tenancy,
    publicBaseUrl,
    // The same list better-auth checks sign-ins against.
    dashboardOrigins: [publicBaseUrl, ...(options.trustedOrigins ?? [])].flatMap((url) => {
      try {
        return [new URL(url).origin];
      } catch {
        return [];
      }
    }),
    authProviders: enabledProviders(oauth),
    dashboardReads: createDashboardReads(database, undefined, (error) =>
      logger.log(
        "warn",
        "a dashboard read's cancel could not be sent; it ends at its time limit",
        describeError(error),
      ),
    ),
    readLanes: createAccountLanes(),
    admission: createDashboardAdmission({
      limiter: coordination.limiter,
      now: () => now().getTime(),
      onLimiterError: (error) => {
        counters.increment("ratelimit_fail_open");
        logSampled("ratelimit-dashboard", "warn", "dashboard limit skipped (fail-open)", describeError(error));
      },
    }),
    signInFailures: createSignInFailureLimit(coordination.limiter, {
      onLimiterError: (error) =>
        logger.log("warn", "sign-in failure limit unavailable; the attempt went on", describeError(error)),
    }),
    registration,
    transformIsolation: pool ? "process" : "none",
    secretBox,
    publicNames,
    config,
    invalidate,
    coordination,
    counters,
    logger,
    delivery,
    results,
    requestLog,
    cron,
    startScheduler: scheduler.start,
    metrics,
    metricsAccess: options.metrics ?? "off",
    deployment: options.deployment ?? (database.kind === "pglite" ? "embedded" : "self-hosted"),
    recordOutcome: createOutcomeRecorder({ kv, db: database.db, logger, logSampled, counters, requestLog, metrics }),
    close: () =>
      shutDown({
        scheduler,
        requestLog,
        flushAll: redis ? null : cron.flushUsage,
        results,
        closers: [store, pool, downloads, sources],
        database,
        logger,
      }),
  };
}

// Kept on globalThis so Next's separate route bundles in one process share one set of services
// (one PGlite may only be opened once per data directory).
const registry = globalThis as typeof globalThis & { __optstuffServices?: Promise<Services> };

export function getServices(): Promise<Services> {
  registry.__optstuffServices ??= createServices(serviceOptionsFromEnv(readEnv())).then((services) => {
    closeOnSignals(services);
    return services;
  });
  return registry.__optstuffServices;
}

/**
 * Closing drains the request log and flushes the database's usage buffer, which takes a moment: the
 * server must run with NEXT_MANUAL_SIG_HANDLE=true (`npm start` sets it) or Next exits first.
 */
function closeOnSignals(services: Services): void {
  const stop = () => {
    services
      .close()
      .catch((error: unknown) => services.logger.log("error", "shutdown was not clean", describeError(error)))
      // Last, so the spans of the drained request log and the final flush are sent too.
      .finally(() => stopTracing().finally(() => process.exit(0)));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/** The server owns its embedded database for as long as it runs, and says so if it loses it. */
function owned(target: DatabaseTarget, databaseProcess: string | undefined, logger: Logger): DatabaseTarget {
  if (target.kind !== "pglite") return target;
  // Without its database the server can answer nothing right; a supervisor (or the operator) starts it again.
  const lost = (reason: string) => {
    logger.log("error", `the embedded database process stopped serving: ${reason}; stopping`);
    process.exit(1);
  };
  return {
    ...target,
    serve: databaseProcess && target.dataDir ? { entry: databaseProcess, onLost: lost } : undefined,
    owner: {
      role: "the OptStuff server",
      // Another process may be writing the database now: serving on would overwrite its writes.
      onCompromised: (error) => {
        logger.log("error", "lost the embedded database's lock; stopping", describeError(error));
        process.exit(1);
      },
      onTakeover: (owner) =>
        logger.log("warn", "took over the embedded database from a process that ended without releasing it", {
          pid: owner?.pid,
          role: owner?.role,
        }),
    },
  };
}

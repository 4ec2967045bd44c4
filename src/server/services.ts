import { env as readEnv } from "@/env";
import type { Secrets } from "@/server/config/secrets";
import type { CachedConfigStore, ConfigInvalidator } from "@/server/config-cache";
import type { Coordination } from "@/server/coordination/create-coordination";
import type { Counters } from "@/server/coordination/counters";
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
import { createDashboardAdmission, type DashboardAdmission } from "@/server/ratelimit/dashboard-admission";
import { createAccountLanes, type AccountLanes } from "@/server/ratelimit/account-lanes";
import { createDashboardReads, type DashboardReads } from "@/server/db/dashboard-reads";
import { createOutcomeRecorder } from "@/server/usage/record-outcome";
import { createCronJobs, type CronJobs } from "@/server/cron/jobs";
import { createMetrics, type Metrics } from "@/server/metrics/metrics";
import { scheduleOnDemand } from "@/server/cron/cron-clock";
import { createRequestLog, defaultRequestLogOptions, type RequestLog } from "@/server/usage/request-log";
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from "@/server/db/client";
import type { UploadCheck } from "@/server/image/check-upload";
import type { PreviewOperations } from "@/server/delivery/preview-operations";
import type { PublicNames } from "@/server/delivery/public-names";
import type { DeliveryDeps, RequestOutcome } from "@/server/delivery/serve-image";
import { createLogger, describeError, type Logger } from "@/server/log";
import {
  serviceOptionsFromEnv,
  type Deployment,
  type MetricsAccess,
  type ServiceOptions,
} from "@/server/service-options";
import { shutDown } from "@/server/shutdown";
import type { SecretBox } from "@/server/signing";
import { createSourceFetcher } from "@/server/source";
import { stopTracing } from "@/server/telemetry/spans";
import { lazyOnce } from "@/server/lazy-once";
import { createDeliveryPlane } from "@/server/delivery/plane";
import { createShared } from "@/server/shared";
import type { SharedResults } from "@/server/result-store/shared-results";

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
  const shared = createShared(options, database, logger);
  const { counters, logSampled, secretBox, publicNames, coordination, config, invalidate, now } = shared;
  const { kv, redis } = coordination;
  const deliveryPlane = await createDeliveryPlane(options, shared);
  const { delivery, results, store, checkUpload, previewOperations } = deliveryPlane;
  const metrics = createMetrics({
    counters,
    scheduler: deliveryPlane.scheduler,
    later: deliveryPlane.laterQueue,
    store,
    limiterWindows: coordination.windows,
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
    transformIsolation: deliveryPlane.transformIsolation,
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
        closers: deliveryPlane.closers,
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

import { env as readEnv } from "@/env";
import type { Secrets } from "@/server/config/secrets";
import type { CronJobs } from "@/server/cron/jobs";
import { openDatabase } from "@/server/db/client";
import { ownedByServer } from "@/server/db/server-owned";
import { createLogger, describeError } from "@/server/log";
import {
  serviceOptionsFromEnv,
  type Deployment,
  type MetricsAccess,
  type ServiceOptions,
} from "@/server/service-options";
import { shutDown } from "@/server/shutdown";
import { stopTracing } from "@/server/telemetry/spans";
import { createDeliveryPlane, type DeliveryPlane } from "@/server/delivery/plane";
import { createUsagePlane, type UsagePlane } from "@/server/usage/plane";
import { createJobsPlane } from "@/server/cron/plane";
import { createDashboardPlane, type DashboardPlane } from "@/server/api/plane";
import { teamsOfProjects } from "@/server/tenancy/projects";
import { createShared, type Shared } from "@/server/shared";

/**
 * Everything the app needs, built once: the clients every plane shares (shared.ts) and each plane's
 * parts, flat. Tests build their own through createServices.
 */
export interface Services
  extends
    Omit<Shared, "logSampled" | "now">,
    DashboardPlane,
    UsagePlane,
    Pick<DeliveryPlane, "delivery" | "results" | "checkUpload" | "previewOperations" | "transformIsolation"> {
  secrets: Secrets;
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
      : await openDatabase(ownedByServer(options.database, options.databaseProcess, logger));
  const shared = createShared(options, database, logger);
  const deliveryPlane = await createDeliveryPlane(options, {
    ...shared,
    teamsOf: (ids) => teamsOfProjects(database, ids),
  });
  const { delivery, results, store, checkUpload, previewOperations, transformIsolation } = deliveryPlane;
  const usage = createUsagePlane(options, { ...shared, delivery: deliveryPlane });
  const dashboard = createDashboardPlane(options, shared);
  const { cron, scheduler } = createJobsPlane(options, {
    ...shared,
    store,
    mailer: dashboard.mailer,
    dashboardUrl: dashboard.publicBaseUrl,
  });
  const { secretBox, publicNames, config, invalidate, coordination, counters } = shared;
  return {
    ...dashboard,
    database,
    secrets: options.secrets,
    secretBox,
    publicNames,
    config,
    invalidate,
    coordination,
    counters,
    logger,
    delivery,
    results,
    checkUpload,
    previewOperations,
    transformIsolation,
    requestLog: usage.requestLog,
    metrics: usage.metrics,
    recordOutcome: usage.recordOutcome,
    cron,
    startScheduler: scheduler.start,
    metricsAccess: options.metrics ?? "off",
    deployment: options.deployment ?? (database.kind === "pglite" ? "embedded" : "self-hosted"),
    close: () =>
      shutDown({
        scheduler,
        requestLog: usage.requestLog,
        flushAll: coordination.redis ? null : cron.flushUsage,
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

import path from "node:path";
import { env as readEnv, transformProcessEnv, type Env } from "@/env";
import { loadSecrets, type Secrets } from "@/server/config/secrets";
import type { CronJobs } from "@/server/cron/jobs";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { ownedByServer } from "@/server/db/server-owned";
import { EMBEDDED_DATABASE_ENTRY, serverDatabaseTargetOf } from "@/server/db/target";
import { createLogger, describeError, type Logger } from "@/server/log";
import { metricsAccessOf, type MetricsAccess } from "@/server/metrics-access";
import { shutDown } from "@/server/shutdown";
import { stopTracing } from "@/server/telemetry/spans";
import { createDeliveryPlane, type DeliveryPlane } from "@/server/delivery/plane";
import { createUsagePlane, type UsagePlane } from "@/server/usage/plane";
import { createJobsPlane } from "@/server/cron/plane";
import { createDashboardPlane, type DashboardPlane } from "@/server/api/plane";
import { teamsOfProjects } from "@/server/tenancy/projects";
import { createShared, type Seams, type Shared } from "@/server/shared";

export type { Seams } from "@/server/shared";

/** How this instance runs, as /api/health says it. */
export type Deployment = "embedded" | "self-hosted" | "vercel";

/**
 * Everything the app needs, built once from the settings (`Env`) and the seams: the clients every
 * plane shares (shared.ts), and each plane under its name. Tests build theirs the same way.
 */
export interface Services extends Omit<Shared, "logSampled" | "now"> {
  secrets: Secrets;
  /** Who may read /api/metrics (metrics/access.ts). */
  metricsAccess: MetricsAccess;
  deployment: Deployment;
  delivery: Omit<DeliveryPlane, "closers">;
  usage: UsagePlane;
  dashboard: DashboardPlane;
  jobs: {
    cron: CronJobs;
    /** Runs the cron jobs on their schedule in this process (servers only; close() stops it). */
    startScheduler(): void;
  };
  /** Drains the request log and, when usage is buffered in the database (no Redis), flushes all of it. */
  close(): Promise<void>;
}

export async function createServices(env: Env, seams: Seams = {}): Promise<Services> {
  const logger = seams.logger ?? createLogger();
  // First: a production server without its secrets says so, not what the database answered.
  const secrets = loadSecrets(env);
  const database = seams.database ?? (await openFromSettings(env, logger));
  const shared = createShared(env, {
    database,
    secrets,
    logger,
    now: seams.now ?? (() => new Date()),
  });
  const { closers, ...delivery } = await createDeliveryPlane(
    env,
    { ...shared, teamsOf: (ids) => teamsOfProjects(database, ids) },
    { ...seams, childEnv: transformProcessEnv() },
  );
  const usage = createUsagePlane(env, { ...shared, delivery });
  const dashboard = createDashboardPlane(env, shared);
  const { cron, scheduler } = createJobsPlane(
    env,
    { ...shared, store: delivery.store, mailer: dashboard.mailer, dashboardUrl: dashboard.publicBaseUrl },
    seams,
  );
  const { logSampled: _sampled, now: _now, ...clients } = shared;
  return {
    ...clients,
    delivery,
    usage,
    dashboard,
    jobs: { cron, startScheduler: scheduler.start },
    metricsAccess: metricsAccessOf(env),
    deployment: env.VERCEL !== undefined ? "vercel" : database.kind === "pglite" ? "embedded" : "self-hosted",
    close: () =>
      shutDown({
        scheduler,
        requestLog: usage.requestLog,
        usage: usage.usage,
        flushAll: clients.coordination.redis ? null : cron.flushUsage,
        results: delivery.results,
        closers,
        database,
        coordination: clients.coordination,
        logger,
      }),
  };
}

/** The server's database: its pool, or the embedded one served from a process of its own (db/embedded/). */
function openFromSettings(env: Env, logger: Logger): Promise<DatabaseHandle> {
  const target = serverDatabaseTargetOf(env);
  return openDatabase(ownedByServer(target, path.resolve(EMBEDDED_DATABASE_ENTRY), logger));
}

// Kept on globalThis so Next's separate route bundles in one process share one set of services
// (one PGlite may only be opened once per data directory).
const registry = globalThis as typeof globalThis & { __optstuffServices?: Promise<Services> };

export function getServices(): Promise<Services> {
  registry.__optstuffServices ??= createServices(readEnv()).then((services) => {
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

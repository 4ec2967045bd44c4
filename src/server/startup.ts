import { env, EnvironmentError, type Env } from "@/env";
import { isProduction } from "@/server/config/platform";
import { recordRegistrationPolicy } from "@/server/tenancy/registration-record";
import { MissingSecretError } from "@/server/config/secrets";
import { recordServerAddress } from "@/server/config/server-address";
import { DatabaseInUseError } from "@/server/db/embedded-lock";
import { SchemaBehindError } from "@/server/db/migrations";
import { describeError, type Logger } from "@/server/log";
import { getServices, type Services } from "@/server/services";
import type { TransformPlacement } from "@/server/image/isolation/transforms";

/**
 * Validates the configuration and opens the database (applying migrations) before the first request.
 * A missing production secret or an invalid variable ends the process with a message naming it.
 */
export async function startServer(): Promise<void> {
  try {
    const e = env();
    const services = await getServices();
    await services.coordination.limiter.warmUp().catch((error: unknown) => {
      services.logger.log(
        "warn",
        "rate limiter warm-up failed; the first requests may fail open",
        describeError(error),
      );
    });
    warnOnSmallThreadPool(e, services.logger);
    if (e.VERCEL === undefined) recordAddress(e, services.logger);
    // Off the path to the first request: a start does not wait for the log.
    void recordRegistrationPolicy(
      { db: services.database.db, now: services.dashboard.tenancy.now },
      services.dashboard.registration,
    ).catch((error: unknown) =>
      services.logger.log("warn", "could not record the registration policy in the audit log", describeError(error)),
    );
    const scheduled = e.OPTSTUFF_SCHEDULER === "on" || (e.OPTSTUFF_SCHEDULER === "auto" && e.VERCEL === undefined);
    if (scheduled) services.jobs.startScheduler();
    services.logger.log("info", "OptStuff ready", {
      ...describeServices(services, e.OPTSTUFF_DATA_DIR),
      production: isProduction(e),
      scheduler: scheduled
        ? "in process (usage flush every minute, maintenance daily at 03:00 UTC)"
        : "external (cron routes)",
    });
  } catch (error) {
    // Configuration problems are the operator's to fix and say so whole; anything else is a failure.
    const message =
      error instanceof EnvironmentError || error instanceof MissingSecretError || error instanceof SchemaBehindError
        ? error.message
        : error instanceof DatabaseInUseError
          ? `${error.message}: stop it first (one process at a time owns an embedded database), or give this server its own OPTSTUFF_DATA_DIR.`
          : `Startup failed: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`\n[optstuff] ${message}\n\n`);
    process.exit(1);
  }
}

const COORDINATION_TEXT = {
  rest: "Upstash Redis (shared by every instance)",
  tcp: "Redis over TCP (REDIS_URL, shared by every instance)",
  none: "in-process (single instance only)",
} as const;

const TRANSFORM_PLACEMENT_TEXT = {
  "by-input": "stills within budget in the server process, the rest in child processes",
  process: "child processes",
  none: "in the server process",
} as const satisfies Record<TransformPlacement, string>;

/**
 * What was built, read from the services themselves: a variable that was set but not used (or a
 * default that changed) cannot make the summary claim what is not running.
 */
export function describeServices(
  services: Pick<Services, "database" | "coordination"> & {
    delivery: Pick<Services["delivery"], "transforms">;
    dashboard: Pick<Services["dashboard"], "registration">;
  },
  dataDir: string,
) {
  return {
    database: services.database.kind === "pglite" ? `embedded PGlite in ${dataDir}` : "PostgreSQL (DATABASE_URL)",
    coordination: COORDINATION_TEXT[services.coordination.transport ?? "none"],
    transformIsolation: TRANSFORM_PLACEMENT_TEXT[services.delivery.transforms.placement],
    registration: services.dashboard.registration.mode,
  };
}

/**
 * For the commands run beside the server (src/server/config/server-address.ts). Not on Vercel, whose
 * files are read-only and where no command runs beside the function. A start does not fail for it:
 * commands then print the address their own settings give.
 */
function recordAddress(e: Env, logger: Logger): void {
  try {
    recordServerAddress(e, new Date());
  } catch (error) {
    logger.log("warn", "could not write the server's address down for the command line", describeError(error));
  }
}

/** libuv's default pool when UV_THREADPOOL_SIZE is unset. */
const DEFAULT_POOL = 4;

/**
 * Each running transform holds a libuv pool thread; with no thread to spare, DNS lookups of sources and
 * password hashing wait behind image work. `npm start` sizes the pool (scripts/server-env.mjs); other
 * launchers may not. Serverless instances serve one request at a time, so they are not warned.
 */
function warnOnSmallThreadPool(e: Env, logger: Logger): void {
  const pool = e.UV_THREADPOOL_SIZE ?? DEFAULT_POOL;
  if (e.VERCEL !== undefined || pool > e.OPTSTUFF_TRANSFORM_CONCURRENCY) return;
  logger.log("warn", "the libuv thread pool has no thread to spare beside the transforms", {
    UV_THREADPOOL_SIZE: pool,
    OPTSTUFF_TRANSFORM_CONCURRENCY: e.OPTSTUFF_TRANSFORM_CONCURRENCY,
    advice: `start with UV_THREADPOOL_SIZE=${e.OPTSTUFF_TRANSFORM_CONCURRENCY + 4} (npm start does)`,
  });
}

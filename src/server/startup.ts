import { env, isProduction } from "@/env";
import { MissingSecretError } from "@/server/config/secrets";
import { getServices } from "@/server/services";

/**
 * Validates the configuration and opens the database (applying migrations) before the first request.
 * A missing production secret or an invalid variable ends the process with a message naming it.
 */
export async function startServer(): Promise<void> {
  try {
    const e = env();
    const services = await getServices();
    await services.coordination.limiter.warmUp().catch((error: unknown) => {
      services.logger.log("warn", "rate limiter warm-up failed; the first requests may fail open", { error: String(error) });
    });
    const scheduled = e.OPTSTUFF_SCHEDULER === "on" || (e.OPTSTUFF_SCHEDULER === "auto" && e.VERCEL === undefined);
    if (scheduled) services.startScheduler();
    services.logger.log("info", "OptStuff ready", {
      database: services.database.kind === "pglite" ? `embedded PGlite in ${e.OPTSTUFF_DATA_DIR}` : "PostgreSQL (DATABASE_URL)",
      coordination: e.UPSTASH_REDIS_REST_URL ? "Upstash Redis" : "in-process (single instance only)",
      production: isProduction(e),
      scheduler: scheduled ? "in process (usage flush every minute, maintenance daily at 03:00 UTC)" : "external (cron routes)",
    });
  } catch (error) {
    const message = error instanceof MissingSecretError || (error instanceof Error && error.message.startsWith("Invalid environment"))
      ? error.message
      : `Startup failed: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`\n[optstuff] ${message}\n\n`);
    process.exit(1);
  }
}

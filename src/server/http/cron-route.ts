import { authorizeCron } from "@/server/cron/authorize-cron";
import type { CronJob } from "@/server/cron/cron-runs";
import { AppError, toAppError } from "@/server/errors";
import { bootLogger, describeError } from "@/server/log";
import type { Services } from "@/server/services";
import { BODY_LIMITS, readBodyWithin } from "@/server/wire/body-limit";

const JOBS: Record<CronJob, (services: Services, url: URL) => Promise<{ ok: boolean }>> = {
  "flush-usage-buffer": (services, url) => services.jobs.cron.flushUsage(flushOptions(url)),
  "daily-maintenance": (services) => services.jobs.cron.dailyMaintenance(),
  "check-alerts": (services) => services.jobs.cron.checkAlerts(),
};

/**
 * A cron route: the bearer secret first, then the job; its JSON report with 200, or 500 when the job
 * or one of its parts failed. Vercel Cron calls with GET; POST is accepted for other schedulers, whose
 * body is read within BODY_LIMITS.cron and ignored.
 */
export function createCronRouteHandler(getServices: () => Promise<Services>, job: CronJob) {
  return async function handle(request: Request): Promise<Response> {
    const headers = { "Cache-Control": "no-store" };
    let services: Services | undefined;
    try {
      await readBodyWithin(request, BODY_LIMITS.cron);
      services = await getServices();
      authorizeCron(request.headers.get("authorization"), services.secrets.cron);
      const report = await JOBS[job](services, new URL(request.url));
      return Response.json(report, { status: report.ok ? 200 : 500, headers });
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.code === "CRON_NOT_CONFIGURED")
        services?.logger.log("warn", "cron route called, but CRON_SECRET is not set", { job });
      else if (error.status >= 500)
        (services?.logger ?? bootLogger).log("error", "cron job failed", { job, ...describeError(thrown) });
      // Internal detail stays in the log: the caller holds the cron secret, but a report is not a debugger.
      return Response.json(
        { ok: false, code: error.publicCode, message: error.publicMessage },
        { status: error.status, headers: { ...headers, ...error.headers } },
      );
    }
  };
}

/**
 * `?safetyLagSeconds=0` flushes minutes still being written too (an operator who wants the numbers
 * now). Safe: increments landing after a claim wait beside it; the lag only spares claiming twice.
 */
function flushOptions(url: URL): { safetyLagMs?: number } {
  const given = url.searchParams.get("safetyLagSeconds");
  if (given === null) return {};
  const seconds = Number(given);
  if (!/^\d+$/.test(given) || seconds > 3600)
    throw new AppError("INVALID_INPUT", { message: "safetyLagSeconds must be a whole number from 0 to 3600" });
  // The lag counts from the end of a bucket's minute; 0 here means "up to now", the current minute included.
  return { safetyLagMs: seconds * 1000 - 60_000 };
}

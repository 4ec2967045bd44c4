import { checkHealth, type HealthReport } from "@/server/health";
import { bootLogger, describeError } from "@/server/log";
import type { Services } from "@/server/services";

/**
 * `?probe=live` answers without touching dependencies; the default also checks readiness: 200 when
 * the database answers (`degraded` included), 503 when it does not.
 */
export function createHealthRouteHandler(getServices: () => Promise<Services>) {
  return async function handle(request: Request): Promise<Response> {
    const headers = { "Cache-Control": "no-store" };
    try {
      const liveOnly = new URL(request.url).searchParams.get("probe") === "live";
      const report: HealthReport = liveOnly ? { status: "ok" } : await checkHealth(getServices);
      return Response.json(report, { status: report.status === "unavailable" ? 503 : 200, headers });
    } catch (error) {
      // checkHealth answers every dependency's failure itself: this is a bug in the check.
      bootLogger.log("error", "health check failed", describeError(error));
      return Response.json({ status: "unavailable" } satisfies HealthReport, { status: 500, headers });
    }
  };
}

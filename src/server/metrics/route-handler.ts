import { AppError } from "@/server/errors";
import { bearerMatches } from "@/server/http/bearer";
import type { Services } from "@/server/services";

/** Prometheus text exposition; a bearer token when one is configured. */
export function createMetricsRouteHandler(getServices: () => Promise<Services>) {
  return async function handle(request: Request): Promise<Response> {
    const services = await getServices();
    if (services.metricsToken !== null && !bearerMatches(request.headers.get("authorization"), services.metricsToken)) {
      const error = new AppError("METRICS_UNAUTHORIZED");
      return Response.json({ code: error.publicCode, message: error.publicMessage }, { status: error.status, headers: { "Cache-Control": "no-store", "WWW-Authenticate": "Bearer" } });
    }
    return new Response(await services.metrics.render(), { headers: { "Content-Type": services.metrics.contentType, "Cache-Control": "no-store" } });
  };
}

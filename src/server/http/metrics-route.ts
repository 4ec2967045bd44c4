import { AppError } from "@/server/errors";
import { bootLogger, describeError } from "@/server/log";
import type { Services } from "@/server/services";
import { bearerMatches } from "@/server/wire/bearer";

/** Prometheus text exposition: off (404) or behind a bearer token (metrics-access.ts). */
export function createMetricsRouteHandler(getServices: () => Promise<Services>) {
  return async function handle(request: Request): Promise<Response> {
    const headers = { "Cache-Control": "no-store" };
    let services: Services | undefined;
    try {
      services = await getServices();
      const access = services.metricsAccess;
      if (access === "off") {
        const error = new AppError("METRICS_OFF");
        return Response.json(
          { code: error.publicCode, message: error.publicMessage },
          { status: error.status, headers },
        );
      }
      // Compared in constant time (hashed first): a wrong guess says nothing of the token.
      if (!bearerMatches(request.headers.get("authorization"), access.token)) {
        const error = new AppError("METRICS_UNAUTHORIZED");
        return Response.json(
          { code: error.publicCode, message: error.publicMessage },
          { status: error.status, headers: { ...headers, "WWW-Authenticate": "Bearer" } },
        );
      }
      return new Response(await services.usage.metrics.render(), {
        headers: { ...headers, "Content-Type": services.usage.metrics.contentType },
      });
    } catch (thrown) {
      // A scraper gets the code; the stack stays in the log.
      (services?.logger ?? bootLogger).log("error", "metrics failed", describeError(thrown));
      const error = new AppError("INTERNAL");
      return Response.json({ code: error.publicCode, message: error.publicMessage }, { status: error.status, headers });
    }
  };
}

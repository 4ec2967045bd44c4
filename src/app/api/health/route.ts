import { createHealthRouteHandler } from "@/server/http/health-route";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** `?probe=live` answers without touching dependencies; the default also checks readiness. */
export const GET = createHealthRouteHandler(getServices);

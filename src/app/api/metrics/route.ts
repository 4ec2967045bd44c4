import { createMetricsRouteHandler } from "@/server/http/metrics-route";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = createMetricsRouteHandler(getServices);

import { createMetricsRouteHandler } from "@/server/metrics/route-handler";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = createMetricsRouteHandler(getServices);

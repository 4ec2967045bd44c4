import { createCronRouteHandler } from "@/server/http/cron-route";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 60;

const handle = createCronRouteHandler(getServices, "check-alerts");
export { handle as GET, handle as POST };

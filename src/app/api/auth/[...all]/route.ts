import { createAuthRouteHandler } from "@/server/http/auth-route";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handler = createAuthRouteHandler(getServices);

export { handler as GET, handler as POST };

import { createTrpcRouteHandler } from "@/server/http/trpc-route";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handler = createTrpcRouteHandler(getServices);

export { handler as GET, handler as POST };

import type { IncomingMessage, ServerResponse } from "node:http";
import { createImageRouteHandler } from "@/server/http/image-route";
import { getServices } from "@/server/services";

/**
 * The image API, /api/v1/{project}/{operations}/{source}, rewritten here by next.config.mjs before Next
 * matches a route. A Pages API route, not an App Router handler, because it owns Node's response: the
 * App Router writer drops Content-Length and adds `Vary: rsc, next-router-…` to every answer, and its
 * param decoding answers a malformed escape with a 500 page before our code runs (contract §4).
 */
export const config = {
  api: {
    // The body is never read (GET/HEAD only); images may exceed the 4 MB response warning.
    bodyParser: false,
    responseLimit: false,
    externalResolver: true,
  },
};

const handler = createImageRouteHandler(getServices);

export default function imageDelivery(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return handler.node(req, res);
}

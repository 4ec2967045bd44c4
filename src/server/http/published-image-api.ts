import type { IncomingMessage, ServerResponse } from "node:http";
import { getServices } from "@/server/services";
import { createImageRouteHandler } from "./image-route";

/** The name scripts/request-routes.mjs looks the handler up by (a unit test checks both). */
export const IMAGE_API_KEY = "optstuff.image-api";

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Hands the image API's Node handler to the server `npm start` runs (scripts/server.mjs), which then
 * calls it without Next's router in between. The handler is the one src/pages/api/image-delivery.ts
 * serves, over the same services (one set per process, src/server/services.ts).
 */
export function publishImageApi(): void {
  const handler = createImageRouteHandler(getServices);
  const node: NodeHandler = (req, res) => handler.node(req, res);
  (globalThis as Record<symbol, unknown>)[Symbol.for(IMAGE_API_KEY)] = node;
}

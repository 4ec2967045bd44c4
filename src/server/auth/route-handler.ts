import { clientAddress } from "@/server/ratelimit/client-address";
import type { Services } from "@/server/services";
import { CLIENT_ADDRESS_HEADER } from "./create-auth";

/**
 * better-auth's endpoints, with the client address computed the way the image route does (trusted
 * proxy hops) and handed over in a header of our own, which a client cannot set: any copy it sends
 * is overwritten.
 */
export function createAuthRouteHandler(getServices: () => Promise<Services>) {
  return async (request: Request): Promise<Response> => {
    const services = await getServices();
    const headers = new Headers(request.headers);
    headers.set(CLIENT_ADDRESS_HEADER, clientAddress(request.headers, services.delivery.limits.trustedProxyHops));
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    return services.auth.handler(new Request(request.url, { method: request.method, headers, body, signal: request.signal }));
  };
}

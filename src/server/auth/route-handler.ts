import type { Services } from "@/server/services";
import { serveAuthRequest } from "./serve-auth-request";

/** better-auth's endpoints behind the body cap, the client address and the account failure window. */
export function createAuthRouteHandler(getServices: () => Promise<Services>) {
  return async (request: Request): Promise<Response> => {
    const services = await getServices();
    return serveAuthRequest(request, {
      auth: services.auth,
      signInFailures: services.signInFailures,
      trustedProxyHops: services.delivery.limits.trustedProxyHops,
    });
  };
}

import { randomUUID } from "node:crypto";
import { recordFailedSignIn } from "@/server/audit/sign-ins";
import { challengedAccount } from "@/server/auth/second-factor-challenge";
import { serveAuthRequest } from "@/server/auth/serve-auth-request";
import { sessionUser } from "@/server/auth/session-user";
import { toAppError } from "@/server/errors";
import { bootLogger, describeError } from "@/server/log";
import type { Services } from "@/server/services";
import { errorResponse } from "@/server/wire/error-response";

/**
 * better-auth's endpoints behind the body cap, the client address and the account failure window. What
 * escapes them is a bug: logged with its stack and the request id the client gets, answered as a bare 500.
 */
export function createAuthRouteHandler(getServices: () => Promise<Services>) {
  return async (request: Request): Promise<Response> => {
    let services: Services | undefined;
    try {
      const loaded = (services = await getServices());
      const auth = await loaded.dashboard.auth();
      return await serveAuthRequest(request, {
        auth,
        signInFailures: services.dashboard.signInFailures,
        clientAddresses: services.delivery.route.limits.clientAddresses,
        challengedAccount: (cookie) =>
          challengedAccount(
            loaded.database.db,
            cookie,
            loaded.dashboard.tenancy.now(),
            loaded.dashboard.publicBaseUrl.startsWith("https:"),
          ),
        sessionAccount: async (headers) => (await sessionUser(auth, headers))?.email ?? null,
        // The refusal is answered whatever happens to its entry.
        onWrongPassword: (email, origin) =>
          recordFailedSignIn({ db: loaded.database.db, now: loaded.dashboard.tenancy.now }, email, origin).catch(
            (error: unknown) =>
              loaded.logger.log("error", "the audit log could not record a failed sign-in", describeError(error)),
          ),
      });
    } catch (thrown) {
      const requestId = randomUUID();
      const error = toAppError(thrown);
      if (error.status >= 500)
        (services?.logger ?? bootLogger).log("error", "auth request failed", {
          requestId,
          path: new URL(request.url).pathname,
          ...describeError(thrown),
        });
      return errorResponse(error, requestId, request.method);
    }
  };
}

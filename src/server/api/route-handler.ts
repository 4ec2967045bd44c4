import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Services } from "@/server/services";
import { describeError } from "@/server/log";
import { createContext } from "./context";
import { appRouter } from "./root";

/** The dashboard's tRPC endpoint; unexpected errors are logged with the request id the client sees. */
export function createTrpcRouteHandler(getServices: () => Promise<Services>) {
  return async (request: Request): Promise<Response> => {
    const services = await getServices();
    return fetchRequestHandler({
      endpoint: "/api/trpc",
      req: request,
      router: appRouter,
      createContext: () => createContext(services, request.headers),
      onError({ error, path, ctx }) {
        if (error.code !== "INTERNAL_SERVER_ERROR") return;
        services.logger.log("error", "procedure failed", { path, requestId: ctx?.requestId, ...describeError(error.cause ?? error) });
      },
    });
  };
}

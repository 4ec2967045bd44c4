import { MAX_BATCH } from "@/lib/trpc/batch-size";
import { randomUUID } from "node:crypto";
import type { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { REFUSALS_AS_DATA } from "@/lib/trpc/refusals";
import { createContext, type DashboardServices } from "@/server/api/context";
import { retryAfterOf } from "@/server/api/errors";
import { appRouter } from "@/server/api/root";
import { sessionUser } from "@/server/auth/session-user";
import { clientAddress } from "@/server/ratelimit/client-address";
import { AppError, isAppError, toAppError } from "@/server/errors";
import { bootLogger, describeError } from "@/server/log";
import type { Services } from "@/server/services";
import { BODY_LIMITS, isJsonContentType, readBodyWithin } from "@/server/wire/body-limit";
import { errorResponse } from "@/server/wire/error-response";

/** The dashboard's tRPC endpoint; unexpected errors are logged with the request id the client sees. */
export function createTrpcRouteHandler(getServices: () => Promise<Services>) {
  return async (request: Request): Promise<Response> => {
    let services: Services;
    try {
      services = await getServices();
    } catch (thrown) {
      const requestId = randomUUID();
      bootLogger.log("error", "procedure failed: services unavailable", { requestId, ...describeError(thrown) });
      return errorResponse(toAppError(thrown), requestId, request.method);
    }
    let req: Request;
    try {
      assertDashboardOrigin(request, services.dashboard.dashboardOrigins);
      req = await withCappedJsonBody(request);
    } catch (thrown) {
      if (!isAppError(thrown)) throw thrown;
      return errorResponse(thrown, randomUUID(), request.method);
    }
    return fetchRequestHandler({
      endpoint: "/api/trpc",
      req,
      router: appRouter,
      // A batch is as many calls as the page asks at once; each is counted, but not without end.
      maxBatchSize: MAX_BATCH,
      createContext: async () =>
        createContext(dashboardServices(services), await sessionUser(await services.dashboard.auth(), req.headers), {
          ip: knownAddress(clientAddress(req.headers, services.delivery.route.limits.clientAddresses)),
          userAgent: req.headers.get("user-agent"),
        }),
      // A refusal's Retry-After (dashboard-limits.ts) as the header too; of a batch, the longest wait.
      // The dashboard's client takes refusals as data (src/lib/trpc/refusals.ts): 200, the same body.
      responseMeta({ errors }) {
        const waits = errors.map(retryAfterOf).filter((seconds) => seconds !== null);
        const headers = waits.length > 0 ? { "Retry-After": String(Math.max(...waits)) } : undefined;
        const asData = errors.length > 0 && wantsRefusalsAsData(req) && errors.every(isRefusal);
        return { ...(headers && { headers }), ...(asData && { status: 200 }) };
      },
      onError({ error, path, ctx }) {
        if (error.code !== "INTERNAL_SERVER_ERROR") return;
        services.logger.log("error", "procedure failed", {
          path,
          requestId: ctx?.requestId,
          ...describeError(error.cause ?? error),
        });
      },
    });
  };
}

const knownAddress = (address: string) => (address === "unknown" ? null : address);

const wantsRefusalsAsData = (request: Request) =>
  request.headers.get(REFUSALS_AS_DATA.header) === REFUSALS_AS_DATA.value;

/** The caller's to change (4xx), as opposed to the server's fault, which keeps its 5xx everywhere. */
const isRefusal = (error: TRPCError) => getHTTPStatusCodeFromError(error) < 500;

/**
 * A mutation posted by a browser carries the page's Origin: one from another site is refused before its
 * body is read. JSON bodies already need a CORS preflight that this route never grants; this is the
 * second lock, and it does not depend on how a browser treats a content type. Requests without an
 * Origin (scripts, which hold no visitor's cookie) pass.
 */
function assertDashboardOrigin(request: Request, allowed: readonly string[]): void {
  if (request.method !== "POST") return;
  const origin = request.headers.get("origin");
  if (origin !== null && !allowed.includes(origin)) throw new AppError("CROSS_SITE_REQUEST");
}

/**
 * Mutations as the dashboard's client sends them: JSON within BODY_LIMITS.trpc. tRPC would also parse
 * multipart and octet-stream bodies, which no procedure takes (a multipart post answered 500).
 */
async function withCappedJsonBody(request: Request): Promise<Request> {
  if (request.method !== "POST") return request;
  if (!isJsonContentType(request.headers.get("content-type"))) throw new AppError("UNSUPPORTED_MEDIA_TYPE");
  const body = await readBodyWithin(request, BODY_LIMITS.trpc);
  return new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
}

/** The part of the services the procedures see (src/server/api/context.ts). */
export function dashboardServices(services: Services): DashboardServices {
  return {
    db: services.database.db,
    tenancy: services.dashboard.tenancy,
    invalidate: services.invalidate,
    store: services.delivery.results?.store ?? null,
    publicNames: services.publicNames,
    logger: services.logger,
    mailer: services.dashboard.mailer,
    publicBaseUrl: services.dashboard.publicBaseUrl,
    freshness: () => services.jobs.cron.freshness(),
    checkUpload: services.delivery.checkUpload,
    previewOperations: services.delivery.previewOperations,
    admission: services.dashboard.admission,
    dashboardReads: services.dashboard.dashboardReads,
    readLanes: services.dashboard.readLanes,
    authProviders: services.dashboard.authProviders,
    registration: services.dashboard.registration,
    webhooks: services.webhooks,
    auditArchive: services.auditStream.archive,
    now: services.dashboard.tenancy.now,
  };
}

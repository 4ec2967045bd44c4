import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { Attributes } from "@opentelemetry/api";
import { waitUntil } from "@vercel/functions";
import { serveImage, type ImageHttpRequest, type RequestOutcome, type Served } from "@/server/delivery/serve-image";
import { toAppError } from "@/server/errors";
import { bootLogger, describeError } from "@/server/log";
import type { Services } from "@/server/services";
import { currentContext, traced, withinContext } from "@/server/telemetry/spans";
import { toWebResponse, writeNodeAnswer } from "@/server/wire/answer";
import { errorAnswer } from "@/server/wire/error-response";

/** The URL's origin is never read (only path and query): requests are parsed against a fixed one. */
const ORIGIN = "http://image-route.invalid";

/**
 * The image route as a function of its services, with two transports: Node's response for the app
 * (src/pages/api/image-delivery.ts) and web Requests for tests and benchmarks. Both run serveImage.
 */
export function createImageRouteHandler(
  getServices: () => Promise<Services>,
  /** Vercel's: keeps the function for work after its answer (@vercel/functions). Tests pass their own. */
  handOff: (work: Promise<unknown>) => void = waitUntil,
) {
  async function serve(request: ImageHttpRequest): Promise<Served & { services: Services | null }> {
    let services: Services | null = null;
    try {
      services = await getServices();
      return { services, ...(await serveImage(request, services.delivery.route)) };
    } catch (thrown) {
      // serveImage answers every error itself; this is the services failing to start.
      const requestId = randomUUID();
      const error = toAppError(thrown);
      (services?.logger ?? bootLogger).log("error", "image route failed", { requestId, ...describeError(thrown) });
      return {
        services,
        answer: errorAnswer(error, requestId),
        outcome: { requestId, status: error.logStatus, httpStatus: error.status, durationMs: 0 },
      };
    }
  }

  return {
    /**
     * Writes to Node's response directly: Next's route-handler writer would drop Content-Length and add
     * its router's Vary tokens (contract §4). The outcome is recorded once the response is complete on
     * the wire. On Vercel that work is handed to the platform (waitUntil) and the handler returns with
     * its answer, so the invocation lasts as long as answering; elsewhere Next, or a plain server,
     * waits for this handler to return, as `after()` would, so the process never outruns its record.
     */
    async node(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const method = req.method ?? "GET";
      await traced("image.request", { "http.request.method": method }, async (span) => {
        const { services, answer, outcome, later } = await serve({
          method,
          url: new URL(req.url ?? "/", ORIGIN),
          headers: toHeaders(req.headers),
        });
        span?.setAttributes(outcomeAttributes(outcome));
        writeNodeAnswer(res, answer, method);
        const afterwards = record(services, outcome).then(() => runLater(services, later));
        if (services?.deployment === "vercel") handOff(afterwards);
        else await afterwards;
      });
    },
    /** The same route for web Requests; `defer` runs the recording after the response is returned. */
    async web(request: Request, defer: (task: () => void) => void): Promise<Response> {
      const url = new URL(request.url);
      return traced("image.request", { "http.request.method": request.method }, async (span) => {
        const { services, answer, outcome, later } = await serve({
          method: request.method,
          url: new URL(url.pathname + url.search, ORIGIN),
          headers: request.headers,
        });
        span?.setAttributes(outcomeAttributes(outcome));
        // Recorded after the answer, in this request's trace.
        const within = currentContext();
        defer(() => withinContext(within, () => void record(services, outcome).then(() => runLater(services, later))));
        return toWebResponse(answer, request.method);
      });
    },
  };
}

/** Work the answer left for later (the final AVIF after an interim answer), then its log entry. */
async function runLater(services: Services | null, later: Served["later"]): Promise<void> {
  if (!later) return;
  const made = await traced("image.later", {}, later);
  if (made) await record(services, made);
}

function record(services: Services | null, outcome: RequestOutcome): Promise<void> {
  if (!services) return Promise.resolve();
  return traced("image.request_log", {}, () => services.usage.recordOutcome(outcome));
}

/** What an operator filters traces by; never the URL (its signature) nor the source's address. */
function outcomeAttributes(outcome: RequestOutcome): Attributes {
  return {
    "http.response.status_code": outcome.httpStatus,
    "optstuff.request_id": outcome.requestId,
    "optstuff.outcome": outcome.status,
    ...(outcome.cache ? { "optstuff.cache": outcome.cache } : {}),
    ...(outcome.projectId ? { "optstuff.project_id": outcome.projectId } : {}),
    ...(outcome.outputFormat ? { "optstuff.output_format": outcome.outputFormat } : {}),
    ...(outcome.sentBytes !== undefined ? { "optstuff.sent_bytes": outcome.sentBytes } : {}),
  };
}

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

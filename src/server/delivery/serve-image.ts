import { randomUUID } from "node:crypto";
import { AppError, toAppError } from "@/server/errors";
import { errorAnswer } from "@/server/wire/error-response";
import { describeError } from "@/server/log";
import { isAuthFailure } from "@/server/ratelimit/auth-failure-guard";
import { clientAddress } from "@/server/ratelimit/client-address";
import { requestLimits, type RequestLimits } from "@/server/ratelimit/request-limits";
import { traced, tracingStarted } from "@/server/telemetry/spans";
import { answerContext } from "./answer-context";
import { planAnswer } from "./answer-plan";
import { attributionOf, authorizeRequest } from "./authorize";
import { enforceKeyPolicy } from "./key-policy";
import type { DeliveryDeps, ImageHttpRequest, RequestOutcome, Served } from "./delivery-types";
import { decodeImagePath, parseImageRequest } from "./parse-request";
import { respond } from "./respond";
import { sourceName } from "./result-keys";
import { requestSource } from "./source-policy";

export type { DeliveryDeps, ImageHttpRequest, RequestOutcome, Served } from "./delivery-types";

/**
 * The image request in order (docs/architecture): parse, pre-auth guard, authorize, policy, revalidate,
 * produce; rate limits charge the address for the request, and key and address for a transform at a miss.
 * Each step returns what it learned (ids also ride on a refusal: attributionOf); the outcome the request
 * log and metrics record is built once, from what is known when the request ends.
 */
export async function serveImage(request: ImageHttpRequest, deps: DeliveryDeps): Promise<Served> {
  const requestId = randomUUID();
  const started = performance.now();
  const address = clientAddress(request.headers, deps.limits.clientAddresses);
  let known: Known = {};
  try {
    const parts = parseImageRequest({ ...decodeImagePath(request.url.pathname), query: request.url.searchParams });
    known = { operations: parts.operationsSegment };
    deps.limits.guard.assertAllowed(address);
    const authorized = await traced("image.authorize", {}, () => authorizeRequest(parts, deps)).catch(
      async (error: unknown) => {
        if (error instanceof AppError && isAuthFailure(error)) await deps.limits.guard.recordFailure(address);
        throw error;
      },
    );
    known = { ...known, projectId: authorized.project.id, apiKeyId: authorized.apiKey.id };
    enforceKeyPolicy(authorized.apiKey, parts, request.headers.get("referer"), deps.now().getTime());
    const location = requestSource(parts.source, authorized.project, request.headers);
    known = { ...known, sourceUrl: sourceName(location) };
    // Charged in respond(), once the request knows what it costs: a transform, or only a request.
    const limitsOf = (afterAnswer: boolean) =>
      tracedLimits(
        requestLimits(authorized.apiKey, address, { ...deps.limits, now: () => deps.now().getTime() }, { afterAnswer }),
      );
    const authMs = performance.now() - started;
    const progress = { requestId, started, authMs, limits: limitsOf(false), laterLimits: () => limitsOf(true) };
    const context = answerContext({
      request,
      parts,
      authorized,
      location,
      deps,
      progress: { ...progress, attribution: known },
    });
    const made = async (key: string) => (await deps.produce.peek(key)) !== null;
    const plan = await planAnswer(request.headers.get("if-none-match"), context.targets, made);
    const { answer, report, later } = await respond(plan, context);
    const outcome = outcomeOf(requestId, started, { ...known, ...report, httpStatus: answer.status });
    return later ? { answer, outcome, later } : { answer, outcome };
  } catch (thrown) {
    const error = toAppError(thrown);
    // A 500 is our bug; other 5xx are the source's or the load's doing.
    if (error.status >= 500) {
      const level = error.status === 500 ? "error" : "warn";
      deps.logger.log(level, "image request failed", { requestId, code: error.code, ...describeError(error) });
    }
    const failed = { ...known, ...attributionOf(thrown), status: error.logStatus, httpStatus: error.status };
    return { answer: errorAnswer(error, requestId), outcome: outcomeOf(requestId, started, failed) };
  }
}

/** What the request revealed before it ended: whose it is, which operations and source. */
type Known = Pick<RequestOutcome, "operations" | "projectId" | "apiKeyId" | "sourceUrl">;

function outcomeOf(
  requestId: string,
  started: number,
  learned: Omit<RequestOutcome, "requestId" | "durationMs" | "status"> & { status?: RequestOutcome["status"] },
): RequestOutcome {
  const durationMs = Math.round(performance.now() - started);
  return { ...learned, requestId, status: learned.status ?? "success", durationMs };
}

/**
 * The limiter's round trips in spans of their own: a slow Redis shows here, not as a slow image.
 * Without tracing the limits are used as they are (no wrapper on the hot path).
 */
function tracedLimits(limits: RequestLimits): RequestLimits {
  if (!tracingStarted()) return limits;
  return {
    admitRequest: () => traced("image.limits", { "optstuff.limits.charge": "request" }, () => limits.admitRequest()),
    admitTransform: () =>
      traced("image.limits", { "optstuff.limits.charge": "transform" }, () => limits.admitTransform()),
    refundKey: () => limits.refundKey(),
  };
}

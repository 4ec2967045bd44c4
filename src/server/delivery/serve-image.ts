import { randomUUID } from "node:crypto";
import { AppError, toAppError, type RequestLogStatus } from "@/server/errors";
import type { HttpAnswer } from "@/server/http/answer";
import { errorAnswer } from "@/server/http/error-response";
import { parseSource, assertSourceAllowed, isRefererAllowed, isSourceAllowed, type SourceLocation } from "@/server/source";
import { describeError, type Logger, type SampledLog } from "@/server/log";
import type { Counters } from "@/server/coordination/counters";
import type { MemoRateLimiter } from "@/server/coordination/types";
import { isAuthFailure, type AuthFailureGuard } from "@/server/ratelimit/auth-failure-guard";
import { clientAddress } from "@/server/ratelimit/client-address";
import { requestLimits, withinLimits, type AddressLimits, type RequestLimits } from "@/server/ratelimit/enforce-key-limits";
import { authorizeRequest, type AuthorizeDeps, type Authorized } from "./authorize";
import { matchesIfNoneMatch, variantKey } from "./cache-key";
import { applyClientHints } from "./client-hints";
import { asFallback, fallbackFor } from "./fallback";
import { expandPreset } from "./presets";
import type { ProjectImageLoader } from "./project-image-bytes";
import { bucketLocation, bucketSettings } from "./buckets";
import { placeWatermark } from "./watermark";
import { decodeImagePath, parseImageRequest, type ImageRequestParts } from "./parse-request";
import type { Produced, Producer, ResultTier } from "./produce";
import { fallbackStoreKey, resultAddress, sourceName } from "./result-keys";
import { serverTiming, successHeaders, type SuccessHeaderInput } from "./success-headers";

export interface ImageHttpRequest {
  method: string;
  /** As the client sent it: the path is decoded here, not by the framework. */
  url: URL;
  headers: Headers;
}

/** What happened, for the request log and metering after the response is sent. */
export interface RequestOutcome {
  requestId: string;
  status: RequestLogStatus;
  httpStatus: number;
  projectId?: string;
  apiKeyId?: string;
  /** Without query string and fragment. */
  sourceUrl?: string;
  operations?: string;
  outputFormat?: string;
  sourceBytes?: number;
  outputBytes?: number;
  /** Body bytes actually sent (0 for HEAD and 304): what usage metering counts. */
  sentBytes?: number;
  durationMs: number;
  cache?: ResultTier | "revalidated";
  /** Milliseconds per phase, for the metrics' histograms. */
  phases?: Partial<Record<"auth" | "store" | "queue" | "fetch" | "transform", number>>;
}

export interface DeliveryDeps extends AuthorizeDeps {
  produce: Producer;
  /** The project's watermark and fallback bytes, by hash. */
  projectImages: ProjectImageLoader;
  logger: Logger;
  limits: {
    limiter: MemoRateLimiter;
    guard: AuthFailureGuard;
    trustedProxyHops: number;
    counters: Counters;
    logSampled: SampledLog;
    addressLimits: AddressLimits;
  };
}

export interface Served {
  answer: HttpAnswer;
  outcome: RequestOutcome;
}

/**
 * The image request in order (docs/architecture): parse, pre-auth guard, authorize, policy, revalidate,
 * produce; rate limits charge the address for the request, and key and address for a transform at a miss.
 */
export async function serveImage(request: ImageHttpRequest, deps: DeliveryDeps): Promise<Served> {
  const requestId = randomUUID();
  const started = performance.now();
  const outcome: RequestOutcome = { requestId, status: "success", httpStatus: 200, durationMs: 0 };
  const address = clientAddress(request.headers, deps.limits.trustedProxyHops);
  try {
    const parts = parseImageRequest({ ...decodeImagePath(request.url.pathname), query: request.url.searchParams });
    outcome.operations = parts.operationsSegment;
    deps.limits.guard.assertAllowed(address);
    const authorized = await authorizeRequest(parts, deps, (ids) => Object.assign(outcome, ids)).catch(async (error: unknown) => {
      if (error instanceof AppError && isAuthFailure(error)) await deps.limits.guard.recordFailure(address);
      throw error;
    });
    const location = checkPolicy(parts, authorized, request.headers);
    outcome.sourceUrl = sourceName(location);
    // Charged in respond(), once the request knows what it costs: a transform, or only a request.
    const limits = requestLimits(authorized.apiKey, address, { ...deps.limits, now: () => deps.now().getTime() });
    const authMs = performance.now() - started;
    const answer = await respond(request, parts, authorized, location, deps, { requestId, started, authMs, outcome, limits });
    outcome.httpStatus = answer.status;
    return { answer, outcome: finish(outcome, started) };
  } catch (thrown) {
    const error = toAppError(thrown);
    // A 500 is our bug; other 5xx are the source's or the load's doing.
    if (error.status >= 500) {
      const level = error.status === 500 ? "error" : "warn";
      deps.logger.log(level, "image request failed", { requestId, code: error.code, ...describeError(error) });
    }
    outcome.status = error.logStatus;
    outcome.httpStatus = error.status;
    return { answer: errorAnswer(error, requestId), outcome: finish(outcome, started) };
  }
}

function checkPolicy(parts: ImageRequestParts, { project }: Authorized, headers: Headers): SourceLocation {
  if (!isRefererAllowed(headers.get("referer"), project.allowedRefererHosts)) throw new AppError("REFERER_NOT_ALLOWED");
  const location = parseSource(parts.source);
  if (location.kind === "bucket") return bucketLocation(location, project);
  assertSourceAllowed(location, project.allowedSourceHosts);
  return location;
}

interface Progress {
  requestId: string;
  started: number;
  authMs: number;
  outcome: RequestOutcome;
  limits: RequestLimits;
}

async function respond(
  request: ImageHttpRequest,
  parts: ImageRequestParts,
  { project }: Authorized,
  location: SourceLocation,
  deps: DeliveryDeps,
  progress: Progress,
): Promise<HttpAnswer> {
  const accept = request.headers.get("accept");
  const hinted = applyClientHints(expandPreset(parts.operations, project), request.headers);
  const operations = placeWatermark(hinted.operations, project);
  const address = resultAddress(project, variantKey(operations, location, accept), location);
  const common = {
    hints: hinted.hints,
    etag: address.etag,
    tags: address.tags,
    exp: parts.exp,
    nowMs: deps.now().getTime(),
    refererRestricted: project.allowedRefererHosts.length > 0,
    requestId: progress.requestId,
  };

  if (matchesIfNoneMatch(request.headers.get("if-none-match"), common.etag)) {
    await progress.limits.admitRequest();
    progress.outcome.cache = "revalidated";
    progress.outcome.sentBytes = 0;
    progress.outcome.phases = { auth: progress.authMs };
    const timing = serverTiming({ auth: progress.authMs, total: performance.now() - progress.started });
    const headers = successHeaders({ ...common, negotiated: operations.format === "auto", serverTiming: timing });
    return { status: 304, headers, body: null };
  }

  const sha256 = operations.watermark?.sha256;
  const job = {
    tenant: project.teamId,
    location,
    operations,
    accept,
    watermark: sha256 === undefined ? undefined : () => deps.projectImages(project.id, "watermark", sha256),
  };
  let produced: Produced;
  try {
    produced = await withinLimits(progress.limits, (admit) =>
      deps.produce({
        ...job,
        key: address.storeKey,
        sourceKey: address.sourceKey,
        mayFollow: (url) => isSourceAllowed({ kind: "remote", url }, project.allowedSourceHosts),
        bucket: location.kind === "bucket" ? () => bucketSettings(project, location.alias, deps.secretBox) : undefined,
        admit,
      }),
    );
  } catch (error) {
    const fallback = fallbackFor(error, project);
    if (!fallback) throw error;
    // Its transform was charged by the attempt that failed; the fallback's output is cached per variant.
    produced = await deps
      .produce({
        ...job,
        key: fallbackStoreKey(project, variantKey(operations, "fallback", accept)),
        sourceKey: "",
        stored: () => deps.projectImages(project.id, "fallback", fallback.sha256),
      })
      .catch((failed: unknown) => {
        deps.logger.log("warn", "fallback image failed", { requestId: progress.requestId, ...describeError(failed) });
        throw error;
      });
    progress.outcome.status = fallback.error.logStatus;
    const answer = answerProduced(request, produced, common, progress);
    return { ...answer, headers: asFallback(answer.headers, fallback.error) };
  }
  return answerProduced(request, produced, common, progress);
}

function answerProduced(
  request: ImageHttpRequest,
  produced: Produced,
  common: Omit<SuccessHeaderInput, "negotiated" | "serverTiming">,
  progress: Progress,
): HttpAnswer & { headers: Headers } {
  const { result } = produced;
  Object.assign(progress.outcome, {
    cache: produced.cache,
    outputFormat: result.format,
    sourceBytes: produced.sourceBytes,
    outputBytes: result.body.length,
    sentBytes: request.method === "HEAD" ? 0 : result.body.length,
    phases: { auth: progress.authMs, ...work(produced) },
  });
  // A request that joined another's job reports its wait, not that job's fetch and transform.
  const timingWork: Record<string, number> = produced.cache === "shared" ? { wait: produced.waitMs } : work(produced);
  const timing = serverTiming({ auth: progress.authMs, ...timingWork, total: performance.now() - progress.started });
  const headers = successHeaders({
    ...common,
    contentType: result.contentType,
    svg: result.format === "svg",
    negotiated: result.negotiated,
    serverTiming: timing,
  });
  return { status: 200, headers, body: result.body };
}

/** The phases this request spent time in: the store's read (and wait), and the fetch and transform at a miss. */
function work(produced: Produced): Record<string, number> {
  if (produced.cache === "hit" || produced.cache === "shared") return {};
  const store: Record<string, number> = produced.storeMs > 0 ? { store: produced.storeMs } : {};
  if (produced.cache === "store") return store;
  return { ...store, fetch: produced.fetchMs, queue: produced.queueMs, transform: produced.transformMs };
}

function finish(outcome: RequestOutcome, started: number): RequestOutcome {
  outcome.durationMs = Math.round(performance.now() - started);
  return outcome;
}

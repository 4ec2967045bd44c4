import type { HttpAnswer } from "@/server/wire/answer";
import type { RequestLogStatus } from "@/server/errors";
import type { RequestLimits } from "@/server/ratelimit/request-limits";
import type { ImageHttpRequest, RequestOutcome } from "./delivery-types";
import type { Produced } from "./produce";
import { serverTiming, successHeaders, type SuccessHeaderInput } from "./success-headers";

/** Where the request has got to, from serveImage. */
export interface Progress {
  requestId: string;
  started: number;
  authMs: number;
  limits: RequestLimits;
  /** Limits for work done after the answer: charged as a transform of its own, not as another request. */
  laterLimits: () => RequestLimits;
  /** Whose request it is and what it asked, for the log entry of work done after the answer. */
  attribution: Pick<RequestOutcome, "projectId" | "apiKeyId" | "sourceUrl" | "operations" | "variant">;
}

/** What answering learned, for the request's outcome: the tier, sizes and phases; a fallback's status. */
export type AnswerReport = Pick<
  RequestOutcome,
  | "cache"
  | "variant"
  | "outputFormat"
  | "qualityMode"
  | "measured"
  | "sourceBytes"
  | "outputBytes"
  | "sentBytes"
  | "phases"
> & { status?: RequestLogStatus };

/** A produced result as the client gets it: the success headers, and what the outcome records. */
export function answerProduced(
  request: ImageHttpRequest,
  produced: Produced,
  common: Omit<SuccessHeaderInput, "negotiated" | "serverTiming">,
  progress: Progress,
): { answer: HttpAnswer & { headers: Headers }; report: AnswerReport } {
  const { result } = produced;
  // A request that joined another's job reports its wait, not that job's fetch and transform.
  const timingWork: Record<string, number> = produced.cache === "shared" ? { wait: produced.waitMs } : work(produced);
  const timing = serverTiming({ auth: progress.authMs, ...timingWork, total: performance.now() - progress.started });
  const headers = successHeaders({
    ...common,
    contentType: result.contentType,
    svg: result.format === "svg",
    negotiated: result.negotiated,
    ...(result.measured ? { measured: result.measured } : {}),
    serverTiming: timing,
  });
  return {
    answer: { status: 200, headers, body: result.body },
    report: {
      cache: produced.cache,
      outputFormat: result.format,
      ...(result.measured ? { measured: result.measured } : {}),
      sourceBytes: produced.sourceBytes,
      outputBytes: result.body.length,
      sentBytes: request.method === "HEAD" ? 0 : result.body.length,
      phases: { auth: progress.authMs, ...work(produced) },
    },
  };
}

/** The phases this request spent time in: the store's read (and wait), and the fetch and transform at a miss. */
function work(produced: Produced): Record<string, number> {
  if (produced.cache === "hit" || produced.cache === "shared") return {};
  const store: Record<string, number> = produced.storeMs > 0 ? { store: produced.storeMs } : {};
  if (produced.cache === "store") return store;
  return { ...store, fetch: produced.fetchMs, queue: produced.queueMs, transform: produced.transformMs };
}

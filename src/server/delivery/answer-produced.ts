import { AppError } from "@/server/errors";
import { negotiatesFormat, qualityModeOf } from "@/server/image";
import { errorAnswer } from "@/server/wire/error-response";
import type { AnswerContext } from "./answer-context";
import { capped } from "./answer-cap";
import type { AnswerTarget } from "./answer-targets";
import type { AnswerReport, Answered } from "./delivery-types";
import type { Produced } from "./produce";
import { serverTiming, successHeaders } from "./success-headers";

/** What an answer is made from: its target, and its result unless the client has it (a 304). */
export interface Made {
  target: AnswerTarget;
  produced?: Produced;
  /** The result as kept under the target's key, when that is not `produced` itself (an interim that is final). */
  kept?: Produced;
  /** The source's failure a fallback answer stands in for. */
  failure?: AppError;
  /** The final answer, made after this interim one is on the wire (finish-later.ts). */
  later?: Answered["later"];
}

/**
 * A made answer as the client gets it: the success headers for its target, and what the outcome
 * records. A 304 is charged as a request (no work is done); an output over the response cap goes out
 * as a redirect to its key's object (answer-cap.ts).
 */
export async function deliver(
  { request, progress, common, project, deps }: AnswerContext,
  { target, produced, kept = produced, failure, later }: Made,
): Promise<Answered> {
  if (!produced) await progress.limits.admitRequest();
  const result = produced?.result;
  // A request that joined another's job reports its wait, not that job's fetch and transform.
  const timingWork = produced?.cache === "shared" ? { wait: produced.waitMs } : work(produced);
  const headers = successHeaders({
    ...common,
    ...(target.kind === "fallback" ? { fallbackFor: failure?.publicCode } : { etag: target.etag }),
    maxSeconds: target.maxSeconds,
    immutable: target.kind === "final" && target.immutable,
    negotiated: result ? result.negotiated : negotiatesFormat(target.operations),
    ...(result ? { contentType: result.contentType, svg: result.format === "svg" } : {}),
    ...(result?.measured ? { measured: result.measured } : {}),
    serverTiming: serverTiming({ auth: progress.authMs, ...timingWork, total: performance.now() - progress.started }),
  });
  const phases = { auth: progress.authMs, ...work(produced) };
  if (!produced || !result || !kept) {
    return {
      answer: { status: 304, headers, body: null },
      report: { cache: "revalidated", sentBytes: 0, phases },
      later,
    };
  }
  const report: AnswerReport = {
    cache: produced.cache,
    ...(target.kind === "fallback" ? {} : { variant: target.variant }),
    outputFormat: result.format,
    // An image answer records how its quality was chosen (the usage page's quality modes); JSON has none.
    ...(result.format === "json" ? {} : { qualityMode: qualityModeOf(target.operations) }),
    ...(result.measured ? { measured: result.measured } : {}),
    sourceBytes: produced.sourceBytes,
    outputBytes: result.body.length,
    sentBytes: request.method === "HEAD" ? 0 : result.body.length,
    phases,
    ...(failure ? { status: failure.logStatus } : {}),
  };
  const answered = { answer: { status: 200, headers, body: result.body }, report };
  try {
    return {
      ...(await capped(answered, kept, { key: target.key, team: project.teamId, maxSeconds: target.maxSeconds }, deps)),
      later,
    };
  } catch (error) {
    // An interim too large to send, with no bucket to redirect to: refused as any such output is, but
    // the final answer is still made (a searched quality may fit), else every request would meet it.
    if (!(later && error instanceof AppError && error.code === "OUTPUT_TOO_LARGE")) throw error;
    return { answer: errorAnswer(error, progress.requestId), report: { status: error.logStatus, sentBytes: 0 }, later };
  }
}

/** The phases this request spent time in: the store's read (and wait), and the fetch and transform at a miss. */
function work(produced: Produced | undefined): Record<string, number> {
  if (!produced || produced.cache === "hit" || produced.cache === "shared") return {};
  const store: Record<string, number> = produced.storeMs > 0 ? { store: produced.storeMs } : {};
  if (produced.cache === "store") return store;
  return { ...store, fetch: produced.fetchMs, queue: produced.queueMs, transform: produced.transformMs };
}

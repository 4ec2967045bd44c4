import { negotiatesFormat, qualityModeOf } from "@/server/image";
import type { SourceLocation } from "@/server/source";
import { answerContext, type AnswerContext } from "./answer-context";
import type { Answered } from "./answer-cap";
import { producedOrFallback } from "./answer-fallback";
import { answerFinal } from "./answer-final";
import { answerInterim, laterJob } from "./answer-interim";
import { interimIfCold, planAnswer, type AnswerPlan } from "./answer-plan";
import type { Progress } from "./answer-produced";
import type { Authorized } from "./authorize";
import type { DeliveryDeps, ImageHttpRequest } from "./delivery-types";
import { asInterim } from "./interim";
import type { ImageRequestParts } from "./parse-request";
import { serverTiming, successHeaders } from "./success-headers";

export type { AnswerReport, Progress } from "./answer-produced";

/**
 * After the request is authorized and its source allowed: the operations as the project and the
 * browser make them, a 304 before any work, else the produced result (or the project's fallback image
 * when the source fails), with the success headers, and what the outcome records. Plan, then act:
 * answer-plan.ts decides which answer, the functions here and in answer-interim.ts make it.
 */
export async function respond(
  request: ImageHttpRequest,
  parts: ImageRequestParts,
  authorized: Authorized,
  location: SourceLocation,
  deps: DeliveryDeps,
  progress: Progress,
): Promise<Answered> {
  const context = answerContext(request, parts, authorized, location, deps, progress);
  const plan = await planAnswer(request.headers.get("if-none-match"), context.common.etag, () =>
    interimIfCold(context),
  );
  const answered = await answerBy(plan, context);
  // An image answer records how its quality was chosen (the usage page's quality modes); JSON has none.
  // An interim answer has already said its own (the default quality's).
  const format = answered.report.outputFormat;
  if (!format || format === "json" || answered.report.qualityMode) return answered;
  return { ...answered, report: { ...answered.report, qualityMode: qualityModeOf(context.operations) } };
}

async function answerBy(plan: AnswerPlan, context: AnswerContext): Promise<Answered> {
  switch (plan.kind) {
    case "not-modified":
      return notModified(context, context.common.etag, negotiatesFormat(context.operations));
    case "interim-not-modified": {
      const { interim } = plan;
      const answered = await notModified(context, interim.etag, negotiatesFormat(interim.plan.operations));
      asInterim(answered.answer.headers, context.maxSeconds);
      // Made once whoever asks (single flight): this starts it again only if the first attempt failed.
      return { ...answered, later: laterJob(context) };
    }
    case "interim":
      return answerInterim(context, plan.interim);
    case "final": {
      const made = await producedOrFallback(context, context.final);
      return "fallback" in made ? made.fallback : answerFinal(context, made.produced);
    }
  }
}

/** A 304: the client has these bytes. Charged as a request; no work is done. */
async function notModified(
  { common, progress }: AnswerContext,
  etag: string,
  negotiated: boolean,
): Promise<Answered & { answer: { headers: Headers } }> {
  await progress.limits.admitRequest();
  const timing = serverTiming({ auth: progress.authMs, total: performance.now() - progress.started });
  return {
    answer: { status: 304, headers: successHeaders({ ...common, etag, negotiated, serverTiming: timing }), body: null },
    report: { cache: "revalidated", sentBytes: 0, phases: { auth: progress.authMs } },
  };
}

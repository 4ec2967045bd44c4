import { AppError } from "@/server/errors";
import { qualityModeOf } from "@/server/image";
import { errorAnswer } from "@/server/wire/error-response";
import type { AnswerContext } from "./answer-context";
import { capped, type Answered } from "./answer-cap";
import { producedOrFallback } from "./answer-fallback";
import type { InterimTarget } from "./answer-plan";
import { answerFinal } from "./answer-final";
import { answerProduced } from "./answer-produced";
import { finishLater } from "./finish-later";
import { asInterim, INTERIM_MAX_AGE, interimIsFinal } from "./interim";

/** The final answer, made after the interim one is on the wire (single flight: once whoever asks). */
export function laterJob(context: AnswerContext): NonNullable<Answered["later"]> {
  const { deps, progress, variant } = context;
  return finishLater({
    produce: deps.produce,
    queue: deps.later!.queue,
    logger: deps.logger,
    input: context.final,
    limits: progress.laterLimits,
    attribution: { ...progress.attribution, variant },
    requestId: progress.requestId,
  });
}

/**
 * A cold request whose final answer is slow: the interim result now, under its own ETag and a short
 * lifetime, and the final one made after. Where the interim result is the final answer itself, it is
 * kept under the final key too and answered as final.
 */
export async function answerInterim(context: AnswerContext, interim: InterimTarget): Promise<Answered> {
  const { deps, project, request, progress, operations, common, maxSeconds } = context;
  const made = await producedOrFallback(context, {
    ...context.final,
    key: interim.storeKey,
    operations: interim.plan.operations,
    accept: interim.plan.accept,
  });
  if ("fallback" in made) return made.fallback;
  const { produced } = made;
  const maxAvifPixels = deps.later?.avif.maxPixels ?? 0;
  if (await interimIsFinal(produced.result, { plan: interim.plan, ops: operations, maxAvifPixels })) {
    // Nothing better to make later: the interim result is the final answer, kept under the final key too.
    return answerFinal(
      context,
      produced,
      await deps.produce.keep(context.address.storeKey, project.teamId, produced.result),
    );
  }
  const answered = answerProduced(request, produced, { ...common, etag: interim.etag }, progress);
  asInterim(answered.answer.headers, maxSeconds);
  const report = { ...answered.report, variant: interim.variant, qualityMode: qualityModeOf(interim.plan.operations) };
  const at = { key: interim.storeKey, team: project.teamId, maxSeconds: Math.min(INTERIM_MAX_AGE, maxSeconds) };
  const later = laterJob(context);
  try {
    return { ...(await capped({ ...answered, report }, produced, at, deps)), later };
  } catch (error) {
    // Too large to send, with no bucket to redirect to: refused as any such output is, but the final
    // answer is still made (a searched quality may fit), else every request would meet the interim.
    if (!(error instanceof AppError && error.code === "OUTPUT_TOO_LARGE")) throw error;
    return { answer: errorAnswer(error, progress.requestId), report: { status: error.logStatus, sentBytes: 0 }, later };
  }
}

import { describeError } from "@/server/log";
import { withinLimits } from "@/server/ratelimit/request-limits";
import type { AnswerContext } from "./answer-context";
import { answerProduced } from "./answer-produced";
import { capped, type Answered } from "./answer-cap";
import { variantKey } from "./cache-key";
import { asFallback, FALLBACK_MAX_AGE, fallbackFor } from "./fallback";
import type { ProduceInput, Produced } from "./produce";
import { fallbackStoreKey } from "./result-keys";

/**
 * Produces `input` within the request's limits, or, when its source fails and the project has a
 * fallback image, answers that image instead (a finished answer: the caller only sends it).
 */
export async function producedOrFallback(
  context: AnswerContext,
  input: ProduceInput,
): Promise<{ produced: Produced } | { fallback: Answered }> {
  const { deps, progress } = context;
  try {
    return {
      produced: await withinLimits(progress.limits, (admit, refund) => deps.produce({ ...input, admit, refund })),
    };
  } catch (error) {
    const fallback = fallbackFor(error, context.project);
    if (!fallback) throw error;
    return { fallback: await answerFallback(context, error, fallback) };
  }
}

async function answerFallback(
  context: AnswerContext,
  failure: unknown,
  fallback: NonNullable<ReturnType<typeof fallbackFor>>,
): Promise<Answered> {
  const { deps, project, progress, operations, accept, final } = context;
  const key = fallbackStoreKey(project, variantKey(operations, "fallback", accept), fallback.sha256);
  // Its transform was charged by the attempt that failed; the fallback's output is cached per variant.
  const produced = await deps
    .produce({
      key,
      tenant: final.tenant,
      team: final.team,
      operations,
      accept,
      watermark: final.watermark,
      stored: () => deps.projectImages(project.id, "fallback", fallback.sha256),
    })
    .catch((failed: unknown) => {
      deps.logger.log("warn", "fallback image failed", { requestId: progress.requestId, ...describeError(failed) });
      throw failure;
    });
  const { answer, report } = answerProduced(context.request, produced, context.common, progress);
  const answered = {
    answer: { ...answer, headers: asFallback(answer.headers, fallback.error) },
    report: { ...report, status: fallback.error.logStatus },
  };
  return capped(answered, produced, { key, team: project.teamId, maxSeconds: FALLBACK_MAX_AGE }, deps);
}

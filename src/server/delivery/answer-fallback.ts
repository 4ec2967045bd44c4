import { describeError } from "@/server/log";
import { withinLimits } from "@/server/ratelimit/request-limits";
import type { AnswerContext } from "./answer-context";
import type { Made } from "./answer-produced";
import type { FinalTarget, InterimTarget } from "./answer-targets";
import { isSourceFailure } from "./source-failures";

/**
 * Produces the target within the request's limits, or, when its source fails (source-failures.ts:
 * never for the request's own faults) and the project has a fallback image, that image instead.
 */
export async function producedOrFallback(context: AnswerContext, target: FinalTarget | InterimTarget): Promise<Made> {
  const { deps, progress, input, project } = context;
  const job = { ...input, key: target.key, operations: target.operations, accept: target.accept };
  try {
    return {
      target,
      produced: await withinLimits(progress.limits, (admit, refund) => deps.produce({ ...job, admit, refund })),
    };
  } catch (failure) {
    if (!context.targets.fallback || !isSourceFailure(failure)) throw failure;
    const fallback = context.targets.fallback();
    // Its transform was charged by the attempt that failed; the fallback's output is cached per variant.
    const produced = await deps
      .produce({
        key: fallback.key,
        tenant: input.tenant,
        team: input.team,
        operations: fallback.operations,
        accept: fallback.accept,
        watermark: input.watermark,
        stored: () => deps.projectImages(project.id, "fallback", fallback.image),
      })
      .catch((failed: unknown) => {
        deps.logger.log("warn", "fallback image failed", { requestId: progress.requestId, ...describeError(failed) });
        throw failure;
      });
    return { target: fallback, produced, failure };
  }
}

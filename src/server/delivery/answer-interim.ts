import sharp from "sharp";
import { isSearchedFormat, type ImageOperations, type TransformResult } from "@/server/image";
import type { AnswerContext } from "./answer-context";
import type { Made } from "./answer-produced";
import type { InterimPlan } from "./interim";
import { finishLater } from "./finish-later";

/**
 * An interim answer, settled: where its result is the final answer itself, kept under the final key
 * too and answered as final; otherwise answered as interim with the final one made after it (single
 * flight: once whoever asks; a 304 for the interim starts it again only if the first attempt failed).
 */
export async function settled(context: AnswerContext, made: Made): Promise<Made> {
  const { target, produced } = made;
  if (target.kind !== "interim") return made;
  const { deps, project, targets, progress } = context;
  const maxAvifPixels = deps.later?.avif.maxPixels ?? 0;
  const plan = { plan: target.plan, ops: targets.final.operations, maxAvifPixels };
  if (produced && (await interimIsFinal(produced.result, plan))) {
    const kept = await deps.produce.keep(targets.final.key, project.teamId, produced.result);
    return { target: targets.final, produced, kept };
  }
  const later = finishLater({
    produce: deps.produce,
    queue: deps.later!.queue,
    logger: deps.logger,
    input: context.input,
    limits: progress.laterLimits,
    attribution: { ...progress.attribution, variant: targets.final.variant },
    requestId: progress.requestId,
  });
  return { ...made, later };
}

/**
 * Whether the final answer would be this interim one itself, so that making it later would only make
 * the same bytes again. AVIF: an animation (AVIF output here takes one frame, so f_auto and f_best give
 * an animation WebP), or f_auto's output over AVIF's area (WebP whatever the Accept). Quality: an
 * animation (never searched), or q_auto's output in a format the search does not take (PNG, GIF).
 */
async function interimIsFinal(
  result: TransformResult,
  { plan, ops, maxAvifPixels }: { plan: InterimPlan; ops: ImageOperations; maxAvifPixels: number },
): Promise<boolean> {
  // The header only (a WebP's or GIF's frame count is in its first chunks), read once if both ask.
  let frames: Promise<number> | undefined;
  const animated = async () =>
    (await (frames ??= sharp(result.body)
      .metadata()
      .then((m) => m.pages ?? 1))) > 1;
  if (plan.avif) {
    if (result.format !== "webp") return false;
    const overArea = ops.format === "auto" && result.width * result.height > maxAvifPixels;
    if (!overArea && !(await animated())) return false;
  }
  if (plan.quality) {
    const searched = ops.format === "best" || isSearchedFormat(result.format);
    if (searched && !(await animated())) return false;
  }
  return true;
}

import type { AnswerContext } from "./answer-context";
import { producedOrFallback } from "./answer-fallback";
import { settled } from "./answer-interim";
import type { AnswerPlan } from "./answer-plan";
import { deliver, type Made } from "./answer-produced";
import type { Answered } from "./delivery-types";

/**
 * Acts on the plan (answer-plan.ts) in one line of steps: the target's result made (or the project's
 * fallback image when the source fails), unless the client has it; an interim settled (final after all,
 * or the final answer made later); then delivered with its headers, within the response cap.
 */
export async function respond(plan: AnswerPlan, context: AnswerContext): Promise<Answered> {
  const made: Made = plan.kind === "produce" ? await producedOrFallback(context, plan.target) : { target: plan.target };
  return deliver(context, await settled(context, made));
}

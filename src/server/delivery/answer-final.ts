import type { AnswerContext } from "./answer-context";
import { capped, type Answered } from "./answer-cap";
import { answerProduced } from "./answer-produced";
import type { Produced } from "./produce";

/**
 * A request's final answer: the produced image under the final variant, capped as it is kept under the
 * final key (an output over the response cap is a redirect to that key's object).
 */
export function answerFinal(context: AnswerContext, produced: Produced, kept: Produced = produced): Promise<Answered> {
  const { request, progress, common, address, project, deps, maxSeconds, variant } = context;
  const answered = answerProduced(request, produced, common, progress);
  const at = { key: address.storeKey, team: project.teamId, maxSeconds };
  return capped({ ...answered, report: { ...answered.report, variant } }, kept, at, deps);
}

import type { AnswerContext } from "./answer-context";
import { matchesIfNoneMatch, variantKey } from "./cache-key";
import { interimPlan, type InterimPlan } from "./interim";
import { resultAddress, type ResultAddress } from "./result-keys";

/** Where an interim answer lives: its own variant, key and ETag (interim.ts). */
export interface InterimTarget extends ResultAddress {
  plan: InterimPlan;
  variant: string;
}

/**
 * What a request gets: a 304 for the final answer, the final answer, or (the final result not made
 * yet and slow to make) the interim answer or a 304 for it, with the final one made after.
 */
export type AnswerPlan =
  | { kind: "not-modified" }
  | { kind: "final" }
  | { kind: "interim"; interim: InterimTarget }
  | { kind: "interim-not-modified"; interim: InterimTarget };

/**
 * Decides the answer from the client's validator and the final ETag; `interimIfCold` is asked only
 * when the final ETag does not match (it reads the result store).
 */
export async function planAnswer(
  ifNoneMatch: string | null,
  etag: string,
  interimIfCold: () => Promise<InterimTarget | null>,
): Promise<AnswerPlan> {
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return { kind: "not-modified" };
  const interim = await interimIfCold();
  if (!interim) return { kind: "final" };
  // A browser revalidating the interim answer while the final one is being made: it already has it.
  if (matchesIfNoneMatch(ifNoneMatch, interim.etag)) return { kind: "interim-not-modified", interim };
  return { kind: "interim", interim };
}

/**
 * The interim answer a cold request gets when its final answer is slow to make (AVIF, a quality
 * search); null when nothing is answered later here, the final answer needs no interim, or its result
 * is already made.
 */
export async function interimIfCold({
  deps,
  operations,
  accept,
  fixed,
  address,
  location,
  project,
}: AnswerContext): Promise<InterimTarget | null> {
  const plan = deps.later ? interimPlan(operations, accept, deps.later, fixed) : null;
  if (!plan || (await deps.produce.peek(address.storeKey))) return null;
  const variant = variantKey(plan.operations, location, plan.accept);
  return { plan, variant, ...resultAddress(project, variant, location, deps.publicNames) };
}

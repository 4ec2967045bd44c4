import type { AnswerTargets, FinalTarget, InterimTarget } from "./answer-targets";

/**
 * What a request gets: a 304 for the final answer, the final answer, or (the final result not made
 * yet and slow to make) the interim answer or a 304 for it, with the final one made after.
 */
export interface AnswerPlan {
  kind: "not-modified" | "produce";
  target: FinalTarget | InterimTarget;
}

/**
 * Decides the answer from the client's validator and the targets' ETags; `made` (does the store hold
 * this result?) is asked only when the final ETag does not match and there is an interim to answer.
 */
export async function planAnswer(
  ifNoneMatch: string | null,
  { final, interim }: Pick<AnswerTargets, "final" | "interim">,
  made: (key: string) => Promise<boolean>,
): Promise<AnswerPlan> {
  if (matchesIfNoneMatch(ifNoneMatch, final.etag)) return { kind: "not-modified", target: final };
  if (!interim || (await made(final.key))) return { kind: "produce", target: final };
  const target = interim();
  // A browser revalidating the interim answer while the final one is being made: it already has it.
  if (matchesIfNoneMatch(ifNoneMatch, target.etag)) return { kind: "not-modified", target };
  return { kind: "produce", target };
}

/** RFC 9110 weak comparison over a list, as If-None-Match requires. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

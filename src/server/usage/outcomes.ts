import type { RequestLogStatus } from "@/server/errors";

/**
 * What became of every request, in four words an admin reads at a glance: made for it (served),
 * answered from a cache or as not modified (cached), declined by a rule (refused: signature, key,
 * limit, policy), or not made although allowed (failed: the source or the server).
 */
export const OUTCOMES = ["served", "cached", "refused", "failed"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Every request-log status but success, by outcome; a new status fails to compile until placed here. */
const OUTCOME_OF_STATUS = {
  bad_request: "refused",
  unauthorized: "refused",
  key_revoked: "refused",
  key_expired: "refused",
  sig_invalid: "refused",
  sig_expired: "refused",
  referer_blocked: "refused",
  policy_refused: "refused",
  source_blocked: "refused",
  rate_limited: "refused",
  cap_reached: "refused",
  too_large: "refused",
  source_error: "failed",
  unsupported_image: "failed",
  timeout: "failed",
  overloaded: "failed",
  error: "failed",
} as const satisfies Record<Exclude<RequestLogStatus, "success">, Outcome>;

/** A success's cache tier: `miss` was transformed for it; every other tier answered without a transform. */
export function outcomeOf(status: string, cache: string): Outcome {
  if (status === "success") return cache === "miss" || cache === "" ? "served" : "cached";
  return (OUTCOME_OF_STATUS as Record<string, Outcome>)[status] ?? "failed";
}

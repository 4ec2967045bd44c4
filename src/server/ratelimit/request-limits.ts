import type { ApiKeyConfig } from "@/server/config-cache";
import type { Counters } from "@/server/coordination/counters";
import { failurePolicy } from "@/server/coordination/failure-policy";
import { rateLimitSubjects } from "@/server/coordination/keys";
import type { LimitResult, LimitWindow, MemoRateLimiter } from "@/server/coordination/types";
import { AppError } from "@/server/errors";
import { capRefusal } from "@/server/spend-caps/refusal";
import { describeError, type SampledLog } from "@/server/log";
import { addressSubject } from "./address-subject";
import { rateLimitSettings, type RateLimitValues } from "./settings";

/** The per-address windows, the same for every key of the instance; 0 turns one off. */
export interface AddressLimits {
  /** Image requests per client address and minute, whatever they cost. */
  requestsPerMinute: number;
  /** Transforms per client address and minute. */
  transformsPerMinute: number;
}

/** The reasoning behind the defaults is in docs/architecture.md (rate limiting). */
export const DEFAULT_ADDRESS_LIMITS: AddressLimits = {
  requestsPerMinute: rateLimitSettings.settings.OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE.default,
  transformsPerMinute: rateLimitSettings.settings.OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE.default,
};

export const addressLimitsOf = (v: RateLimitValues): AddressLimits => ({
  requestsPerMinute: v.OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE,
  transformsPerMinute: v.OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE,
});

export interface LimitDeps {
  limiter: MemoRateLimiter;
  logSampled: SampledLog;
  counters: Counters;
  now: () => number;
  addressLimits: AddressLimits;
}

interface Subjects {
  apiKey: ApiKeyConfig;
  /** Null when the request cannot be attributed to a visitor (address-subject.ts). */
  address: string | null;
  addressLimits: AddressLimits;
}

interface LimitPolicy {
  window: LimitWindow;
  /** What spends a token: every request (304, cache hit and shared result included), or a transform only. */
  costs: "request" | "transform";
  /**
   * Whose window: a key's tokens come back when the work failed at the source (it could not prevent
   * that); an address's do not (it asked).
   */
  paidBy: "address" | "key";
  /** The window's identifier and maximum for this request; null when the window does not apply. */
  bound(subjects: Subjects): { identifier: string; max: number } | null;
}

const addressBound = (subject: (address: string) => string, max: number, address: string | null) =>
  address !== null && max > 0 ? { identifier: subject(address), max } : null;

/**
 * Who pays for what (docs/architecture.md, rate limiting). A key pays for the work done under it,
 * transforms, never for a request answered from the result cache or by a 304: every image URL is public
 * and unsigned query parameters bust CDN caches, so counting requests let one visitor's replays spend
 * every other visitor's budget. An address pays for its requests, whatever they cost, and for its
 * transforms in a window of its own, smaller than a key's: a replaying or cache-busting visitor is
 * throttled alone and cannot spend a key's transforms by itself.
 */
export const limitPolicies = {
  addressRequests: {
    window: "minute",
    costs: "request",
    paidBy: "address",
    bound: ({ address, addressLimits }) =>
      addressBound(rateLimitSubjects.addressRequests, addressLimits.requestsPerMinute, address),
  },
  addressTransforms: {
    window: "minute",
    costs: "transform",
    paidBy: "address",
    bound: ({ address, addressLimits }) =>
      addressBound(rateLimitSubjects.addressTransforms, addressLimits.transformsPerMinute, address),
  },
  keyTransformsPerMinute: {
    window: "minute",
    costs: "transform",
    paidBy: "key",
    bound: ({ apiKey }) => ({
      identifier: rateLimitSubjects.keyTransforms(apiKey.publicKey),
      max: apiKey.rateLimitPerMinute,
    }),
  },
  keyTransformsPerDay: {
    window: "day",
    costs: "transform",
    paidBy: "key",
    bound: ({ apiKey }) => ({
      identifier: rateLimitSubjects.keyTransforms(apiKey.publicKey),
      max: apiKey.rateLimitPerDay,
    }),
  },
} as const satisfies Record<string, LimitPolicy>;

type PolicyName = keyof typeof limitPolicies;
const policyNames = Object.keys(limitPolicies) as PolicyName[];
const REQUEST_POLICIES = policyNames.filter((name) => limitPolicies[name].costs === "request");

interface Check {
  policy: PolicyName;
  window: LimitWindow;
  identifier: string;
  max: number;
}

/** One image request's admission: it calls exactly one of these once it knows what it costs. */
export interface RequestLimits {
  /** Answered without work (a 304, a cache hit, a result another request produced): the request windows. */
  admitRequest(): Promise<void>;
  /** About to fetch and transform (a miss): the key's spend cap, then every window, in one round trip. */
  admitTransform(): Promise<void>;
  /** The admitted work failed at the source: the key's windows get their tokens back (never awaited). */
  refundKey(): void;
}

/**
 * Each window is charged at most once per request, whichever calls come, so a request that transformed
 * is not charged again when it is answered.
 */
export function requestLimits(
  apiKey: ApiKeyConfig,
  clientAddress: string,
  deps: LimitDeps,
  /** Work a request left for after its answer: a transform of its own, but not another request. */
  { afterAnswer = false }: { afterAnswer?: boolean } = {},
): RequestLimits {
  const address = addressSubject(clientAddress);
  const subjects: Subjects = { apiKey, address, addressLimits: deps.addressLimits };
  const charged = new Set<PolicyName>(afterAnswer ? REQUEST_POLICIES : []);
  const admitted: Check[] = [];

  async function charge(names: readonly PolicyName[]): Promise<void> {
    const checks: Check[] = [];
    for (const policy of names) {
      if (charged.has(policy)) continue;
      charged.add(policy);
      const bound = limitPolicies[policy].bound(subjects);
      if (bound) checks.push({ policy, window: limitPolicies[policy].window, ...bound });
    }
    admitted.push(...(await enforce(checks, deps)));
  }

  // Counted once per request, so operators see how much traffic a missing proxy declaration hides.
  if (address === null) deps.counters.increment("ratelimit_address_unattributed");
  return {
    admitRequest: () => charge(REQUEST_POLICIES),
    admitTransform: async () => {
      // Before any window is charged: a capped key's refused transform spends none of them.
      const overCap = capRefusal(apiKey, deps.now());
      if (overCap) throw overCap;
      await charge(policyNames);
    },
    refundKey() {
      for (const check of admitted.splice(0)) {
        if (limitPolicies[check.policy].paidBy === "key") giveBack(check, deps);
        else admitted.push(check);
      }
    },
  };
}

/**
 * Runs `work` (the producer), handing it `admit` for the moment it finds a miss. A request that only
 * waited on another request's job is charged as a request afterwards; if that other request was refused
 * by its own limits, the refusal is not this one's: it tries once more, under its own limits (the
 * refused job is gone by then, so it either finds the result or does the work itself).
 */
export async function withinLimits<T>(
  limits: RequestLimits,
  work: (admit: () => Promise<void>, refund: () => void) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let admittedHere = false;
    const admit = () => {
      admittedHere = true;
      return limits.admitTransform();
    };
    let produced: T;
    try {
      produced = await work(admit, () => limits.refundKey());
    } catch (error) {
      // The job's own request was refused for its key's limits or cap, not this one's key.
      const anotherRequestsRefusal =
        !admittedHere &&
        error instanceof AppError &&
        (error.code === "RATE_LIMITED" || error.code === "SPEND_CAP_REACHED");
      if (anotherRequestsRefusal && attempt === 0) continue;
      // A failure answered without work (a source failure remembered) is still a request the address made.
      await limits.admitRequest();
      throw error;
    }
    await limits.admitRequest(); // a no-op after admitTransform: each window is charged once
    return produced;
  }
}

/**
 * Asks every window at once (one pipeline: one round trip) and answers the windows that admitted; gives
 * back the tokens of windows that admitted when another refused (refund, after the decision, never
 * awaited). So no order's waste
 * happens: the seed checked the day first, and every request the minute window refused spent a day
 * token; checking one window after the other costs a round trip per window. A refusal still in force is
 * answered from memory without Redis (refusal-memo.ts). A limiter failure lets the request through
 * (failure-policy.ts).
 */
async function enforce(checks: Check[], deps: LimitDeps): Promise<Check[]> {
  if (checks.length === 0) return [];
  const known = checks.flatMap((check) => {
    const result = deps.limiter.knownRefusal(check.window, check.identifier, check.max);
    return result ? [{ check, result }] : [];
  });
  if (known.length > 0) throw refusalOf(known, deps.now());

  const results = await Promise.all(checks.map((check) => limitOrAdmit(check, deps)));
  const refused = results.flatMap((result, i) => (result.success ? [] : [{ check: checks[i]!, result }]));
  // What a refund may give back: the windows that counted this request (not one that failed open).
  if (refused.length === 0) return checks.filter((_, i) => !results[i]!.failedOpen);
  results.forEach((result, i) => {
    if (result.success && !result.failedOpen) giveBack(checks[i]!, deps);
  });
  throw refusalOf(refused, deps.now());
}

/** The refusing window that frees capacity last: retrying before its reset cannot succeed. */
function refusalOf(refused: Array<{ check: Check; result: LimitResult }>, nowMs: number): AppError {
  const last = refused.reduce((a, b) => (b.result.reset > a.result.reset ? b : a));
  return refusal(last.result, nowMs, last.check.policy);
}

function giveBack(check: Check, deps: LimitDeps): void {
  deps.limiter.refund(check.window, check.identifier, check.max).catch((error: unknown) => {
    deps.counters.increment("ratelimit_refund_failed");
    deps.logSampled("ratelimit-refund", "warn", "rate limit refund failed", {
      policy: check.policy,
      ...describeError(error),
    });
  });
}

async function limitOrAdmit(check: Check, deps: LimitDeps): Promise<LimitResult> {
  try {
    const result = await deps.limiter.limit(check.window, check.identifier, check.max);
    if (result.failedOpen) failedOpen(deps, check, new Error("rate limiter timed out"));
    return result;
  } catch (error) {
    failedOpen(deps, check, error);
    return { success: true, limit: check.max, remaining: check.max, reset: deps.now(), failedOpen: true };
  }
}

function failedOpen(deps: LimitDeps, check: Check, error: unknown): void {
  deps.counters.increment("ratelimit_fail_open");
  deps.logSampled("ratelimit", "warn", "rate limit skipped", {
    policy: check.policy,
    onFailure: failurePolicy.rateLimit.onFailure,
    ...describeError(error),
  });
}

/** A 429 with the refusing window's numbers (contract §4); `which` names the window in the request log only. */
export function refusal(result: LimitResult, nowMs: number, which?: string): AppError {
  const retryAfter = Math.max(1, Math.ceil((result.reset - nowMs) / 1000));
  return new AppError("RATE_LIMITED", {
    detail: `${which ? `${which} ` : ""}limit ${result.limit} reached`,
    headers: {
      "Retry-After": String(retryAfter),
      "X-RateLimit-Limit": String(result.limit),
      "X-RateLimit-Remaining": String(Math.max(0, result.remaining)),
      "X-RateLimit-Reset": String(Math.ceil(result.reset / 1000)),
    },
  });
}

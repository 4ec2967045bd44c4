import type { ProjectConfig } from "@/server/config-cache/model";
import type { ImageOperations } from "@/server/image";
import type { SourceLocation } from "@/server/source";
import type { AnswerOperations } from "./answer-operations";
import type { DeliveryDeps } from "./delivery-types";
import { INTERIM_MAX_AGE, interimPlan, type InterimPlan } from "./interim";
import { fallbackStoreKey, resultAddress, variantKey, type ResultAddress } from "./result-keys";

/** Long enough to spare a failing origin a storm, short enough that a fixed source shows up soon. */
export const FALLBACK_MAX_AGE = 60;

/** One answer a request may get: what it is made of, where its result lives, how long caches keep it. */
interface Target {
  operations: ImageOperations;
  accept: string | null;
  variant: string;
  /** The result's key in every tier (result-keys.ts). */
  key: string;
  maxSeconds: number;
}

/** The URL's own image: never changes without an expiry (contract §4). */
export interface FinalTarget extends Target {
  kind: "final";
  etag: string;
  immutable: boolean;
}

/** Answered at once while the final image is made later (interim.ts): its own variant, short-lived. */
export interface InterimTarget extends Target {
  kind: "interim";
  etag: string;
  plan: InterimPlan;
}

/**
 * The project's fallback image, standing in when the source fails: cached briefly and without an
 * ETag (a revalidation must not keep the stand-in once the source works).
 */
export interface FallbackTarget extends Target {
  kind: "fallback";
  /** The uploaded image's SHA-256: a replaced fallback is never answered from the old one's outputs. */
  image: string;
}

export type AnswerTarget = FinalTarget | InterimTarget | FallbackTarget;

export interface AnswerTargets {
  final: FinalTarget;
  /**
   * Null when nothing is answered later here or the final answer needs no interim; named only when
   * asked (answer-plan.ts: a cold request), so a warm one hashes nothing for it.
   */
  interim: (() => InterimTarget) | null;
  /** Null when the project has no fallback image; named only when asked, after the source failed. */
  fallback: (() => FallbackTarget) | null;
  /** The final result's whole address: its source key and the tags a purge names. */
  address: ResultAddress;
}

/**
 * Every answer the request may get, named from the request alone (no fetch), so that a conditional
 * request is answered before any work and identical requests share one job.
 */
export function answerTargets(
  { operations, fixed }: AnswerOperations,
  accept: string | null,
  request: {
    location: SourceLocation;
    project: Pick<ProjectConfig, "id" | "allowedSourceHosts" | "cache" | "fallback">;
    maxSeconds: number;
    exp: number | undefined;
  },
  deps: Pick<DeliveryDeps, "later" | "publicNames">,
): AnswerTargets {
  const { location, project, maxSeconds } = request;
  const plan = deps.later ? interimPlan(operations, accept, deps.later, fixed) : null;
  const stored = project.fallback;
  const variant = variantKey(operations, location, accept);
  const address = resultAddress(project, variant, location, deps.publicNames);
  const final: FinalTarget = {
    kind: "final",
    operations,
    accept,
    variant,
    key: address.storeKey,
    etag: address.etag,
    maxSeconds,
    immutable: request.exp === undefined,
  };
  const interim = (later: InterimPlan): InterimTarget => {
    const interimVariant = variantKey(later.operations, location, later.accept);
    const { storeKey, etag } = resultAddress(project, interimVariant, location, deps.publicNames);
    return {
      kind: "interim",
      operations: later.operations,
      accept: later.accept,
      plan: later,
      variant: interimVariant,
      key: storeKey,
      etag,
      maxSeconds: Math.min(INTERIM_MAX_AGE, maxSeconds),
    };
  };
  const fallback = (sha256: string): FallbackTarget => {
    const fallbackVariant = variantKey(operations, "fallback", accept);
    return {
      kind: "fallback",
      operations,
      accept,
      variant: fallbackVariant,
      image: sha256,
      key: fallbackStoreKey(project, fallbackVariant, sha256),
      maxSeconds: FALLBACK_MAX_AGE,
    };
  };
  return {
    final,
    interim: plan ? () => interim(plan) : null,
    fallback: stored ? () => fallback(stored.sha256) : null,
    address,
  };
}

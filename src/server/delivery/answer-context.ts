import type { SourceLocation } from "@/server/source";
import { answerOperations } from "./answer-operations";
import { answerTargets, type AnswerTargets } from "./answer-targets";
import type { Authorized } from "./authorize";
import { bucketSettings } from "./buckets";
import type { RequestLimits } from "@/server/ratelimit/request-limits";
import type { DeliveryDeps, ImageHttpRequest, RequestOutcome } from "./delivery-types";
import type { ImageRequestParts } from "./parse-request";
import type { SourceInput } from "./produce";
import type { SuccessHeaderInput } from "./success-headers";

/** What a request's answers share in their success headers (each answer adds its own lifetime and ETag). */
export type CommonHeaders = Pick<SuccessHeaderInput, "hints" | "tags" | "refererRestricted" | "requestId">;

/** Where the request has got to, from serveImage. */
export interface Progress {
  requestId: string;
  started: number;
  authMs: number;
  limits: RequestLimits;
  /** Limits for work done after the answer: charged as a transform of its own, not as another request. */
  laterLimits: () => RequestLimits;
  /** Whose request it is and what it asked, for the log entry of work done after the answer. */
  attribution: Pick<RequestOutcome, "projectId" | "apiKeyId" | "sourceUrl" | "operations" | "variant">;
}

/** One authorized image request whose source is allowed. */
export interface AnswerRequest {
  request: ImageHttpRequest;
  parts: ImageRequestParts;
  authorized: Authorized;
  location: SourceLocation;
  deps: DeliveryDeps;
  progress: Progress;
}

/**
 * One authorized image request and what follows from it before any work: the operations as the project
 * and the browser make them, every answer it may get and where their results live. Everything
 * answering reads.
 */
export interface AnswerContext extends Omit<AnswerRequest, "authorized"> {
  project: Authorized["project"];
  targets: AnswerTargets;
  /** The final answer's work (an interim's is the same with its own key, operations and Accept). */
  input: SourceInput;
  common: CommonHeaders;
}

export function answerContext({ request, parts, authorized, location, deps, progress }: AnswerRequest): AnswerContext {
  const { project, maxSeconds } = authorized;
  const made = answerOperations(parts.operations, project, request.headers);
  const accept = request.headers.get("accept");
  const targets = answerTargets(made, accept, { location, project, maxSeconds, exp: parts.exp }, deps);
  const sha256 = made.operations.watermark?.sha256;
  const input: SourceInput = {
    key: targets.final.key,
    tenant: project.account,
    team: project.teamId,
    operations: made.operations,
    accept,
    watermark: sha256 === undefined ? undefined : () => deps.projectImages(project.id, "watermark", sha256),
    location,
    sourceKey: targets.address.sourceKey,
    sourceHosts: project.allowedSourceHosts,
    bucket: location.kind === "bucket" ? () => bucketSettings(project, location.alias, deps.secretBox) : undefined,
  };
  const common = {
    hints: made.hints,
    tags: targets.address.tags,
    // The key's own list restricts embedding as the project's does: caches must keep answers apart too.
    refererRestricted: project.allowedRefererHosts.length > 0 || (authorized.apiKey.policy?.referers.length ?? 0) > 0,
    requestId: progress.requestId,
  };
  return { request, parts, project, location, deps, progress, targets, input, common };
}

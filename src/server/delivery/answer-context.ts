import { type ImageOperations } from "@/server/image";
import type { SourceLocation } from "@/server/source";
import type { Progress } from "./answer-produced";
import type { Authorized } from "./authorize";
import { bucketSettings } from "./buckets";
import { variantKey } from "./cache-key";
import { applyClientHints } from "./client-hints";
import { withDefaultQuality } from "./default-quality";
import type { DeliveryDeps, ImageHttpRequest } from "./delivery-types";
import { withoutSearch } from "./interim";
import type { ImageRequestParts } from "./parse-request";
import { expandPreset } from "./presets";
import type { SourceInput } from "./produce";
import { resultAddress, type ResultAddress } from "./result-keys";
import { lifetimeSeconds, type SuccessHeaderInput } from "./success-headers";
import { placeWatermark } from "./watermark";

/** The success headers' inputs every answer to one request shares (the ETag aside, an interim's is its own). */
export type CommonHeaders = Omit<SuccessHeaderInput, "negotiated" | "serverTiming">;

/**
 * One authorized image request and what follows from it before any work: the operations as the project
 * and the browser make them, the variant and where its result lives. Everything answering reads.
 */
export interface AnswerContext {
  request: ImageHttpRequest;
  parts: ImageRequestParts;
  project: Authorized["project"];
  location: SourceLocation;
  deps: DeliveryDeps;
  progress: Progress;
  operations: ImageOperations;
  /** What the URL makes without a quality search: the interim answer's operations (interim.ts). */
  fixed: ImageOperations;
  accept: string | null;
  variant: string;
  address: ResultAddress;
  /** The final answer's work (the interim's is the same with its own key, operations and Accept). */
  final: SourceInput;
  common: CommonHeaders;
  /** How long a cache may keep an answer: until the signature expires, at most a year. */
  maxSeconds: number;
}

export function answerContext(
  request: ImageHttpRequest,
  parts: ImageRequestParts,
  { project }: Authorized,
  location: SourceLocation,
  deps: DeliveryDeps,
  progress: Progress,
): AnswerContext {
  const asked = withDefaultQuality(expandPreset(parts.operations, project), project);
  const hinted = applyClientHints(asked, request.headers);
  const operations = placeWatermark(hinted.operations, project);
  const fixed = placeWatermark(applyClientHints(withoutSearch(asked), request.headers).operations, project);
  const accept = request.headers.get("accept");
  const variant = variantKey(operations, location, accept);
  const address = resultAddress(project, variant, location, deps.publicNames);
  const nowMs = deps.now().getTime();
  return {
    request,
    parts,
    project,
    location,
    deps,
    progress,
    operations,
    fixed,
    accept,
    variant,
    address,
    final: finalInput({ project, operations, accept }, location, address, deps),
    common: {
      hints: hinted.hints,
      etag: address.etag,
      tags: address.tags,
      exp: parts.exp,
      nowMs,
      refererRestricted: project.allowedRefererHosts.length > 0,
      requestId: progress.requestId,
    },
    maxSeconds: lifetimeSeconds(parts.exp, nowMs),
  };
}

/** The final answer's work: the URL's variant under its own key, fetched from the source. */
function finalInput(
  { project, operations, accept }: Pick<AnswerContext, "project" | "operations" | "accept">,
  location: SourceLocation,
  address: ResultAddress,
  deps: DeliveryDeps,
): SourceInput {
  const sha256 = operations.watermark?.sha256;
  return {
    key: address.storeKey,
    tenant: project.account,
    team: project.teamId,
    operations,
    accept,
    watermark: sha256 === undefined ? undefined : () => deps.projectImages(project.id, "watermark", sha256),
    location,
    sourceKey: address.sourceKey,
    sourceHosts: project.allowedSourceHosts,
    bucket: location.kind === "bucket" ? () => bucketSettings(project, location.alias, deps.secretBox) : undefined,
  };
}

import { AppError } from "@/server/errors";
import type { SourceLocation } from "@/server/source";
import { errorAnswer } from "@/server/wire/error-response";
import { negotiatesFormat, qualityModeOf, type ImageOperations } from "@/server/image";
import { describeError } from "@/server/log";
import { withinLimits } from "@/server/ratelimit/request-limits";
import type { HttpAnswer } from "@/server/wire/answer";
import { answerProduced, type AnswerReport, type Progress } from "./answer-produced";
import type { Authorized } from "./authorize";
import { bucketSettings } from "./buckets";
import { matchesIfNoneMatch, variantKey } from "./cache-key";
import { applyClientHints } from "./client-hints";
import type { DeliveryDeps, ImageHttpRequest, RequestOutcome } from "./delivery-types";
import { asFallback, FALLBACK_MAX_AGE, fallbackFor } from "./fallback";
import type { ImageRequestParts } from "./parse-request";
import { withDefaultQuality } from "./default-quality";
import { finishLater } from "./finish-later";
import { asInterim, INTERIM_MAX_AGE, interimIsFinal, interimPlan, withoutSearch } from "./interim";
import { expandPreset } from "./presets";
import type { Produced } from "./produce";
import { fallbackStoreKey, resultAddress } from "./result-keys";
import { lifetimeSeconds, serverTiming, successHeaders, type SuccessHeaderInput } from "./success-headers";
import { placeWatermark } from "./watermark";

export type { AnswerReport, Progress } from "./answer-produced";

export interface Answered {
  answer: HttpAnswer;
  report: AnswerReport;
  /** Work to run once the answer is on the wire (avif-later.ts). */
  later?: () => Promise<RequestOutcome | null>;
}

/**
 * After the request is authorized and its source allowed: the operations as the project and the
 * browser make them, a 304 before any work, else the produced result (or the project's fallback image
 * when the source fails), with the success headers, and what the outcome records.
 */
export async function respond(
  request: ImageHttpRequest,
  parts: ImageRequestParts,
  { project }: Authorized,
  location: SourceLocation,
  deps: DeliveryDeps,
  progress: Progress,
): Promise<Answered> {
  const asked = withDefaultQuality(expandPreset(parts.operations, project), project);
  const hinted = applyClientHints(asked, request.headers);
  const operations = placeWatermark(hinted.operations, project);
  // What the URL makes without a quality search: the interim answer's operations (interim.ts).
  const fixed = placeWatermark(applyClientHints(withoutSearch(asked), request.headers).operations, project);
  const answered = await answerWith(
    { operations, fixed, hints: hinted.hints },
    request,
    parts,
    project,
    location,
    deps,
    progress,
  );
  // An image answer records how its quality was chosen (the usage page's quality modes); JSON has none.
  // An interim answer has already said its own (the default quality's).
  const format = answered.report.outputFormat;
  if (!format || format === "json" || answered.report.qualityMode) return answered;
  return { ...answered, report: { ...answered.report, qualityMode: qualityModeOf(operations) } };
}

async function answerWith(
  { operations, fixed, hints }: { operations: ImageOperations; fixed: ImageOperations; hints: string[] },
  request: ImageHttpRequest,
  parts: ImageRequestParts,
  project: Authorized["project"],
  location: SourceLocation,
  deps: DeliveryDeps,
  progress: Progress,
): Promise<Answered> {
  const accept = request.headers.get("accept");
  const variant = variantKey(operations, location, accept);
  const address = resultAddress(project, variant, location, deps.publicNames);
  const common = {
    hints,
    etag: address.etag,
    tags: address.tags,
    exp: parts.exp,
    nowMs: deps.now().getTime(),
    refererRestricted: project.allowedRefererHosts.length > 0,
    requestId: progress.requestId,
  };

  if (matchesIfNoneMatch(request.headers.get("if-none-match"), common.etag)) {
    return await notModified({ ...common, negotiated: negotiatesFormat(operations) }, progress);
  }

  const sha256 = operations.watermark?.sha256;
  const job = {
    tenant: project.account,
    team: project.teamId,
    location,
    operations,
    accept,
    watermark: sha256 === undefined ? undefined : () => deps.projectImages(project.id, "watermark", sha256),
  };
  const final = {
    ...job,
    key: address.storeKey,
    sourceKey: address.sourceKey,
    sourceHosts: project.allowedSourceHosts,
    bucket: location.kind === "bucket" ? () => bucketSettings(project, location.alias, deps.secretBox) : undefined,
  };
  // Without the wait: a cold request whose final answer is slow gets an interim one now (interim.ts).
  const plan = deps.later ? interimPlan(operations, accept, deps.later, fixed) : null;
  const interimVariant =
    plan && !(await deps.produce.peek(address.storeKey)) ? variantKey(plan.operations, location, plan.accept) : null;
  const interim =
    plan && interimVariant
      ? { plan, variant: interimVariant, ...resultAddress(project, interimVariant, location, deps.publicNames) }
      : null;
  const maxSeconds = lifetimeSeconds(parts.exp, common.nowMs);
  const laterJob = () =>
    finishLater({
      produce: deps.produce,
      queue: deps.later!.queue,
      logger: deps.logger,
      input: final,
      limits: progress.laterLimits,
      attribution: { ...progress.attribution, variant },
      requestId: progress.requestId,
    });
  // A browser revalidating the interim answer while the final one is being made: it already has it.
  if (interim && matchesIfNoneMatch(request.headers.get("if-none-match"), interim.etag)) {
    const negotiated = negotiatesFormat(interim.plan.operations);
    const answered = await notModified({ ...common, etag: interim.etag, negotiated }, progress);
    asInterim(answered.answer.headers, maxSeconds);
    // Made once whoever asks (single flight): this starts it again only if the first attempt failed.
    return { ...answered, later: laterJob() };
  }
  let produced: Produced;
  try {
    produced = await withinLimits(progress.limits, (admit, refund) =>
      deps.produce({
        ...final,
        ...(interim ? { key: interim.storeKey, operations: interim.plan.operations, accept: interim.plan.accept } : {}),
        admit,
        refund,
      }),
    );
  } catch (error) {
    const fallback = fallbackFor(error, project);
    if (!fallback) throw error;
    const fallbackKey = fallbackStoreKey(project, variantKey(operations, "fallback", accept), fallback.sha256);
    // Its transform was charged by the attempt that failed; the fallback's output is cached per variant.
    produced = await deps
      .produce({
        ...job,
        key: fallbackKey,
        sourceKey: "",
        stored: () => deps.projectImages(project.id, "fallback", fallback.sha256),
      })
      .catch((failed: unknown) => {
        deps.logger.log("warn", "fallback image failed", { requestId: progress.requestId, ...describeError(failed) });
        throw error;
      });
    const { answer, report } = answerProduced(request, produced, common, progress);
    const answered = {
      answer: { ...answer, headers: asFallback(answer.headers, fallback.error) },
      report: { ...report, status: fallback.error.logStatus },
    };
    return capped(answered, produced, { key: fallbackKey, team: project.teamId, maxSeconds: FALLBACK_MAX_AGE }, deps);
  }
  const maxAvifPixels = deps.later?.avif.maxPixels ?? 0;
  if (interim && (await interimIsFinal(produced.result, { plan: interim.plan, ops: operations, maxAvifPixels }))) {
    // Nothing better to make later: the interim result is the final answer, kept under the final key too.
    const kept = await deps.produce({ ...final, made: produced.result });
    const answered = withVariant(answerProduced(request, produced, common, progress), variant);
    // Capped as kept: an output over the response cap is redirected to the final key's object.
    return capped(answered, kept, { key: address.storeKey, team: project.teamId, maxSeconds }, deps);
  }
  if (interim) {
    // Its own ETag (the interim variant's), so a revalidation after the final one is made gets that.
    const made = answerProduced(request, produced, { ...common, etag: interim.etag }, progress);
    const answered = withVariant(
      { ...made, report: { ...made.report, qualityMode: qualityModeOf(interim.plan.operations) } },
      interim.variant,
    );
    asInterim(answered.answer.headers, maxSeconds);
    const at = { key: interim.storeKey, team: project.teamId, maxSeconds: Math.min(INTERIM_MAX_AGE, maxSeconds) };
    const later = laterJob();
    try {
      return { ...(await capped(answered, produced, at, deps)), later };
    } catch (error) {
      // Too large to send, with no bucket to redirect to: refused as any such output is, but the final
      // answer is still made (a searched quality may fit), else every request would meet the interim.
      if (!(error instanceof AppError && error.code === "OUTPUT_TOO_LARGE")) throw error;
      return {
        answer: errorAnswer(error, progress.requestId),
        report: { status: error.logStatus, sentBytes: 0 },
        later,
      };
    }
  }
  const answered = withVariant(answerProduced(request, produced, common, progress), variant);
  return capped(answered, produced, { key: address.storeKey, team: project.teamId, maxSeconds }, deps);
}

/** The variant an image answer delivered: what the unique transformations count (usage/variant-days.ts). */
function withVariant<T extends Pick<Answered, "report">>(answered: T, variant: string): T {
  return { ...answered, report: { ...answered.report, variant } };
}

/** A 304: the client has these bytes. Charged as a request; no work is done. */
async function notModified(
  headerInput: Omit<SuccessHeaderInput, "serverTiming">,
  progress: Progress,
): Promise<Answered & { answer: { headers: Headers } }> {
  await progress.limits.admitRequest();
  const timing = serverTiming({ auth: progress.authMs, total: performance.now() - progress.started });
  return {
    answer: { status: 304, headers: successHeaders({ ...headerInput, serverTiming: timing }), body: null },
    report: { cache: "revalidated", sentBytes: 0, phases: { auth: progress.authMs } },
  };
}

/** An output over the deployment's response cap goes out as a redirect to the bucket (oversize.ts). */
async function capped(
  answered: Answered,
  produced: Produced,
  at: { key: string; team: string; maxSeconds: number },
  deps: DeliveryDeps,
): Promise<Answered> {
  const redirect = await deps.oversize?.({
    ...at,
    result: produced.result,
    stored: produced.cache === "store",
    written: produced.written,
    headers: answered.answer.headers,
  });
  if (!redirect) return answered;
  return {
    answer: { status: redirect.status, headers: redirect.headers, body: null },
    report: { ...answered.report, sentBytes: 0 },
  };
}

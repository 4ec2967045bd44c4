import { randomUUID } from "node:crypto";
import sharp from "sharp";
import { AppError } from "@/server/errors";
import { acceptClass, negotiatesFormat, type ImageOperations, type TransformResult } from "@/server/image";
import { describeError, type Logger } from "@/server/log";
import type { RequestLimits } from "@/server/ratelimit/request-limits";
import type { AvifLaterPolicy, RequestOutcome } from "./delivery-types";
import type { LaterQueue } from "./later-queue";
import type { Producer, ProduceInput } from "./produce";

/** Tries of a later job refused for room in the scheduler before it gives up (the next request asks again). */
const LATER_ATTEMPTS = 3;
/** The interim answer's shared lifetime, in seconds (contract §4: 60 or shorter, never immutable). */
export const INTERIM_MAX_AGE = 60;
/** The Accept class the interim answer is made for: every browser that takes AVIF takes WebP. */
export const INTERIM_ACCEPT = "image/webp";

/**
 * Whether a cold request would wait for a slow AVIF: f_auto or f_best, AVIF in Accept, and an output of
 * at least `minPixels` that is not known to be over `maxPixels`. Predicted before the source is read,
 * from the requested size: `w_` and `h_` (a missing one taken as equal to the other) times dpr²; with
 * neither, the source's own size, unknown yet, so assumed large (and made later if it is AVIF after all).
 */
export function answersAvifLater(
  ops: ImageOperations,
  accept: string | null,
  policy: Pick<AvifLaterPolicy, "minPixels" | "maxPixels">,
): boolean {
  if (policy.minPixels <= 0 || !negotiatesFormat(ops) || acceptClass(accept) !== "avif") return false;
  if (ops.info || ops.placeholder) return false;
  const pixels = requestedPixels(ops);
  return pixels >= policy.minPixels && (pixels === Infinity || pixels <= policy.maxPixels);
}

export function requestedPixels(ops: Pick<ImageOperations, "width" | "height" | "dpr">): number {
  const width = ops.width ?? ops.height;
  const height = ops.height ?? ops.width;
  if (width === undefined || height === undefined) return Infinity;
  const dpr = ops.dpr ?? 1;
  return width * height * dpr * dpr;
}

/**
 * Whether the final answer would be this interim WebP itself, so that making it later would only make
 * the same bytes again: an animation (AVIF output here takes one frame, so f_auto and f_best give an
 * animation WebP), or f_auto's output over AVIF's area (answered WebP whatever the Accept).
 */
export async function interimIsFinal(
  result: TransformResult,
  ops: ImageOperations,
  policy: Pick<AvifLaterPolicy, "maxPixels">,
): Promise<boolean> {
  if (result.format !== "webp") return false;
  if (ops.format === "auto" && result.width * result.height > policy.maxPixels) return true;
  // The header only: a WebP's frame count is in its first chunks.
  const { pages } = await sharp(result.body).metadata();
  return (pages ?? 1) > 1;
}

/** Short-lived and revalidated: no CDN or browser keeps the interim answer as the final one. */
export function asInterim(headers: Headers, lifetimeSeconds: number): Headers {
  const seconds = Math.min(INTERIM_MAX_AGE, lifetimeSeconds);
  headers.set("Cache-Control", `public, max-age=${seconds}, s-maxage=${seconds}`);
  headers.set("CDN-Cache-Control", `public, max-age=${seconds}`);
  return headers;
}

export interface LaterJob {
  produce: Producer;
  /** The process's queue of work after answers: the job waits its tenant's turn there. */
  queue: LaterQueue;
  logger: Logger;
  /** The final result's production, as the request would have made it. */
  input: Omit<ProduceInput, "admit" | "refund" | "background">;
  /** Fresh limits for this request's key and address: the later encode is charged as a transform of its own. */
  limits: () => RequestLimits;
  /** Whose it is, for its request-log entry. */
  attribution: Pick<RequestOutcome, "projectId" | "apiKeyId" | "sourceUrl" | "operations" | "variant">;
  requestId: string;
}

/**
 * Makes the final AVIF after the interim answer went out: at background priority, charged to the key
 * and address as a transform, stored, and served from then on. Its request-log entry (cache `later`,
 * nothing sent) is returned when this job made it, null when another request or instance had, or when
 * it failed (logged: the interim answer stands, and the next request tries again).
 */
export function finishLater(job: LaterJob): () => Promise<RequestOutcome | null> {
  return async () => {
    const started = performance.now();
    try {
      const made = async () => {
        for (let attempt = 1; ; attempt++) {
          // Limits asked when the job starts: the key pays for the work when it is done.
          const limits = job.limits();
          try {
            return await job.produce({
              ...job.input,
              background: true,
              admit: () => limits.admitTransform(),
              refund: () => limits.refundKey(),
            });
          } catch (error) {
            // The scheduler filled up in the moment after the queue saw room: the key gets its
            // transform back, and the job tries again shortly.
            if (!(error instanceof AppError && error.code === "OVERLOADED") || attempt >= LATER_ATTEMPTS) throw error;
            limits.refundKey();
            await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
          }
        }
      };
      const produced = await job.queue.run(job.input.tenant, made, job.input.key);
      // Dropped (its tenant's line is full: the next request of the URL asks again), or already asked for.
      if (!produced) return null;
      await produced.written;
      if (produced.cache !== "miss") return null;
      const { result } = produced;
      return {
        ...job.attribution,
        requestId: randomUUID(),
        status: "success",
        httpStatus: 200,
        cache: "later",
        outputFormat: result.format,
        ...(result.measured ? { measured: result.measured } : {}),
        sourceBytes: produced.sourceBytes,
        outputBytes: result.body.length,
        sentBytes: 0,
        durationMs: Math.round(performance.now() - started),
        phases: { fetch: produced.fetchMs, queue: produced.queueMs, transform: produced.transformMs },
      };
    } catch (error) {
      job.logger.log("warn", "the final AVIF was not made; the interim answer stands", {
        requestId: job.requestId,
        ...describeError(error),
      });
      return null;
    }
  };
}

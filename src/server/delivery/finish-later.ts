import { randomUUID } from "node:crypto";
import { AppError } from "@/server/errors";
import { describeError, type Logger } from "@/server/log";
import type { RequestLimits } from "@/server/ratelimit/request-limits";
import type { RequestOutcome } from "./delivery-types";
import type { LaterQueue } from "./later-queue";
import type { Producer, SourceInput } from "./produce";

/** Tries of a later job refused for room in the scheduler before it gives up (the next request asks again). */
const LATER_ATTEMPTS = 3;

export interface LaterJob {
  produce: Producer;
  /** The process's queue of work after answers: the job waits its tenant's turn there. */
  queue: LaterQueue;
  logger: Logger;
  /** The final result's production, as the request would have made it. */
  input: Omit<SourceInput, "admit" | "refund" | "background">;
  /** Fresh limits for this request's key and address: the later encode is charged as a transform of its own. */
  limits: () => RequestLimits;
  /** Whose it is, for its request-log entry. */
  attribution: Pick<RequestOutcome, "projectId" | "apiKeyId" | "sourceUrl" | "operations" | "variant">;
  requestId: string;
}

/**
 * Makes the final answer after the interim one went out (interim.ts): at background priority, charged
 * to the key and address as a transform, stored, and served from then on. Its request-log entry (cache
 * `later`, nothing sent) is returned when this job made it, null when another request or instance had,
 * or when it failed (logged: the interim answer stands, and the next request tries again).
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
      job.logger.log("warn", "the final answer was not made; the interim answer stands", {
        requestId: job.requestId,
        ...describeError(error),
      });
      return null;
    }
  };
}

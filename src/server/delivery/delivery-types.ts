import type { LaterQueue } from "./later-queue";
import type { MeasuredQuality } from "@/server/image";
import type { ClientAddressPolicy } from "@/server/ratelimit/client-address";
import type { Counters } from "@/server/coordination/counters";
import type { MemoRateLimiter } from "@/server/coordination/types";
import type { RequestLogStatus } from "@/server/errors";
import type { HttpAnswer } from "@/server/wire/answer";
import type { SampledLog, Logger } from "@/server/log";
import type { AuthFailureGuard } from "@/server/ratelimit/auth-failure-guard";
import type { AddressLimits } from "@/server/ratelimit/request-limits";
import type { AuthorizeDeps } from "./authorize";
import type { Oversize } from "./oversize";
import type { Producer, ResultTier } from "./produce";
import type { ProjectImageLoader } from "./project-image-bytes";
import type { PublicNames } from "./public-names";

export interface ImageHttpRequest {
  method: string;
  /** As the client sent it: the path is decoded here, not by the framework. */
  url: URL;
  headers: Headers;
}

/** What happened, for the request log and metering after the response is sent. */
export interface RequestOutcome {
  requestId: string;
  status: RequestLogStatus;
  httpStatus: number;
  projectId?: string;
  apiKeyId?: string;
  /** Without query string and fragment. */
  sourceUrl?: string;
  operations?: string;
  /**
   * The answered image's variant key (result-keys.ts: source, canonical operations, negotiated format
   * class), for the unique transformations a project made; absent for a 304, a fallback and a refusal.
   */
  variant?: string;
  outputFormat?: string;
  /** How the output's quality was chosen (image/quality/quality-mode.ts), for an image answer. */
  qualityMode?: string;
  /** What q_auto chose, when it chose. */
  measured?: MeasuredQuality;
  sourceBytes?: number;
  outputBytes?: number;
  /** Body bytes actually sent (0 for HEAD and 304): what usage metering counts. */
  sentBytes?: number;
  durationMs: number;
  /** `later`: not a request but the final answer made after an interim one (interim.ts). */
  cache?: ResultTier | "revalidated" | "later";
  /** Milliseconds per phase, for the metrics' histograms. */
  phases?: Partial<Record<"auth" | "store" | "queue" | "fetch" | "transform", number>>;
}

/** Answers without the wait (interim.ts): what a cold request may answer at once, the final made later. */
export interface LaterPolicy {
  /** AVIF without the wait (avif-later.ts). */
  avif: {
    /** OPTSTUFF_AVIF_LATER_MIN_PIXELS; 0: never. */
    minPixels: number;
    /** OPTSTUFF_MAX_AVIF_PIXELS: a negotiated output larger than this is WebP anyway, so nothing is made later. */
    maxPixels: number;
  };
  /** OPTSTUFF_QUALITY_LATER: q_auto and f_best answer the format's default quality first. */
  quality: boolean;
  /** Where the final answers made after their interim ones wait their turn (later-queue.ts). */
  queue: LaterQueue;
}

export interface DeliveryDeps extends AuthorizeDeps {
  produce: Producer;
  /**
   * Answers without the wait (interim.ts): a cold request whose final answer is slow (an AVIF, a
   * quality search) gets an interim answer at once, the final one made after. Absent: never.
   */
  later?: LaterPolicy | null;
  /** Outputs over the deployment's response cap (oversize.ts); absent: no cap. */
  oversize?: Oversize | null;
  /** The project's watermark and fallback bytes, by hash. */
  projectImages: ProjectImageLoader;
  /** Keyed names of the ETag and Cache-Tag values (the same ones a purge answers with). */
  publicNames: PublicNames;
  logger: Logger;
  limits: {
    limiter: MemoRateLimiter;
    guard: AuthFailureGuard;
    clientAddresses: ClientAddressPolicy;
    counters: Counters;
    logSampled: SampledLog;
    addressLimits: AddressLimits;
  };
}

export interface Served {
  answer: HttpAnswer;
  outcome: RequestOutcome;
  /** Work to run once the answer is on the wire (the final AVIF after an interim answer); its own log entry. */
  later?: () => Promise<RequestOutcome | null>;
}

/** What answering learned, for the request's outcome: the tier, sizes and phases; a fallback's status. */
export type AnswerReport = Pick<
  RequestOutcome,
  | "cache"
  | "variant"
  | "outputFormat"
  | "qualityMode"
  | "measured"
  | "sourceBytes"
  | "outputBytes"
  | "sentBytes"
  | "phases"
> & { status?: RequestLogStatus };

/** An answer as the client gets it, and what its outcome records. */
export interface Answered {
  answer: HttpAnswer;
  report: AnswerReport;
  /** Work to run once the answer is on the wire (finish-later.ts). */
  later?: () => Promise<RequestOutcome | null>;
}

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
   * The answered image's variant key (cache-key.ts: source, canonical operations, negotiated format
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
  /** `later`: not a request but the final AVIF made after an interim answer (avif-later.ts). */
  cache?: ResultTier | "revalidated" | "later";
  /** Milliseconds per phase, for the metrics' histograms. */
  phases?: Partial<Record<"auth" | "store" | "queue" | "fetch" | "transform", number>>;
}

export interface AvifLaterPolicy {
  /** OPTSTUFF_AVIF_LATER_MIN_PIXELS; 0: never. */
  minPixels: number;
  /** OPTSTUFF_MAX_AVIF_PIXELS: a negotiated output larger than this is WebP anyway, so nothing is made later. */
  maxPixels: number;
  /** Where the AVIFs made after their answers wait their turn (later-queue.ts). */
  queue: LaterQueue;
}

export interface DeliveryDeps extends AuthorizeDeps {
  produce: Producer;
  /**
   * AVIF without the wait (avif-later.ts): a cold f_auto/f_best request for AVIF at `minPixels` output
   * pixels or more, but not over `maxPixels` (past which the answer is WebP anyway), is answered WebP at
   * once, the AVIF made after. Absent: never.
   */
  avifLater?: AvifLaterPolicy | null;
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

import type { RequestOutcome } from "@/server/delivery/serve-image";

export interface UsageIncrement {
  projectId: string;
  apiKeyId: string;
  /** 1 for an answered request; 0 for an encode finished after its request (which was counted itself). */
  requests: 0 | 1;
  /** Bytes sent in the body (0 for HEAD and 304). */
  bytes: number;
  /** 1 when the request made its image (a miss, or the encode after an interim answer): what caps count. */
  transforms: 0 | 1;
  at: Date;
}

/**
 * What a request adds to metering: one request, its bytes and whether it transformed for a served
 * image; a transform alone for an encode finished after its answer; nothing otherwise.
 */
export function meteredIncrement(outcome: RequestOutcome, at: Date): UsageIncrement | null {
  if (outcome.status !== "success" || !outcome.apiKeyId || !outcome.projectId) return null;
  const ids = { projectId: outcome.projectId, apiKeyId: outcome.apiKeyId, at };
  // A `later` entry is an encode made after its request, which was metered itself: nothing was sent.
  if (outcome.cache === "later") return { ...ids, requests: 0, bytes: 0, transforms: 1 };
  return { ...ids, requests: 1, bytes: outcome.sentBytes ?? 0, transforms: outcome.cache === "miss" ? 1 : 0 };
}

/**
 * A request, its bytes and its transform as fields of the UTC minute's bucket (usage-window.ts adds a
 * window's together, one MULTI on a single key, so it also works on a cluster); a field is written only
 * when it adds something. The flush reads whole buckets that are older than a safety lag, so a bucket
 * is complete when it is read.
 */
export function usageFields(
  increment: Pick<UsageIncrement, "projectId" | "apiKeyId" | "requests" | "bytes" | "transforms">,
): Record<string, number> {
  const prefix = `${increment.projectId}|${increment.apiKeyId}`;
  return {
    ...(increment.requests > 0 && { [`${prefix}|req`]: increment.requests, [`${prefix}|bytes`]: increment.bytes }),
    ...(increment.transforms > 0 && { [`${prefix}|tf`]: increment.transforms }),
  };
}

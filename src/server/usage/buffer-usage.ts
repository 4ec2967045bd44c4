import type { RequestOutcome } from "@/server/delivery/serve-image";

export interface UsageIncrement {
  projectId: string;
  apiKeyId: string;
  /** Bytes sent in the body (0 for HEAD and 304). */
  bytes: number;
  at: Date;
}

/** What a request adds to metering: one request and its bytes for a served image, nothing otherwise. */
export function meteredIncrement(outcome: RequestOutcome, at: Date): UsageIncrement | null {
  // A `later` entry is an encode made after its request, which was metered itself: nothing was sent.
  if (outcome.status !== "success" || !outcome.apiKeyId || !outcome.projectId || outcome.cache === "later") return null;
  return { projectId: outcome.projectId, apiKeyId: outcome.apiKeyId, bytes: outcome.sentBytes ?? 0, at };
}

/**
 * One request and its bytes as fields of the UTC minute's bucket (usage-window.ts adds a window's
 * together, one MULTI on a single key, so it also works on a cluster). The flush reads whole buckets
 * that are older than a safety lag, so a bucket is complete when it is read.
 */
export function usageFields(
  increment: Pick<UsageIncrement, "projectId" | "apiKeyId" | "bytes">,
): Record<string, number> {
  const prefix = `${increment.projectId}|${increment.apiKeyId}`;
  return { [`${prefix}|req`]: 1, [`${prefix}|bytes`]: increment.bytes };
}

/**
 * What happens when Redis is unreachable or slower than its budget, for every use, in one table.
 * Budgets are tens of milliseconds on the hot path: a slow Redis must cost at most that much latency.
 * The clients never retry (their default retries take seconds); a late answer is simply ignored.
 */
export interface FailurePolicy {
  timeoutMs: number;
  /** What the caller does instead; never an error into the response. */
  onFailure: string;
  /** Whether the image request waits for it. */
  blocking: boolean;
}

export const failurePolicy = {
  configRead: { timeoutMs: 50, blocking: true, onFailure: "read Postgres instead (the source of truth)" },
  configWrite: { timeoutMs: 200, blocking: false, onFailure: "skip: the next miss tries again" },
  invalidation: {
    timeoutMs: 1000,
    blocking: false,
    onFailure:
      "log and count it; this instance's L1 is already cleared, other instances see the change when the Redis entry expires (≤ 60 s)",
  },
  rateLimit: { timeoutMs: 50, blocking: true, onFailure: "let the request through (fail-open), log and count" },
  activityThrottle: { timeoutMs: 500, blocking: false, onFailure: "skip the lastUsedAt write this time" },
  usageIncrement: { timeoutMs: 2000, blocking: false, onFailure: "log and count the lost increment" },
  requestLogCap: {
    timeoutMs: 500,
    blocking: false,
    onFailure:
      "leave the batch's rows out of the request log (counted; its statistics are written): an uncounted log could be flooded",
  },
  // Asked only at a miss, right before a transform of 50 ms to seconds: a wider budget than the hot
  // path's costs little and keeps a busy instance (a cold burst) from transforming what another is making.
  transformLease: {
    timeoutMs: 250,
    blocking: true,
    onFailure:
      "transform in this instance without a lease (count and log): other instances may make the same result once",
  },
  resultStoreRead: {
    timeoutMs: 500,
    blocking: true,
    onFailure: "treat as a miss and transform (count and log); never fail the request",
  },
  resultStoreWrite: {
    timeoutMs: 10_000,
    blocking: false,
    onFailure: "count and log; the response was already sent, the next miss transforms again",
  },
} as const satisfies Record<string, FailurePolicy>;

export type FailureKind = keyof typeof failurePolicy;

export class TimeoutError extends Error {
  constructor(kind: string, ms: number) {
    super(`${kind} exceeded ${ms} ms`);
    this.name = "TimeoutError";
  }
}

/** Races a Redis call against its budget; the call itself is not cancelled, its late answer ignored. */
export function withBudget<T>(kind: FailureKind, work: Promise<T>): Promise<T> {
  const ms = failurePolicy[kind].timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(kind, ms)), ms);
  });
  work.catch(() => {}); // a late rejection must not become an unhandled one
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

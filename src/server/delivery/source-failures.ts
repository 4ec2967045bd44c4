import { fromWireError, isAppError, toWireError, type AppError, type ErrorCode, type WireError } from "@/server/errors";

/**
 * What the source did wrong: missing or gone, an origin failing or too slow, or bytes that are not an
 * image. Not the request's faults (signature, operations, policy, limits) nor the service's (overload).
 * The project's fallback image stands in for these, the key is not charged for them, and they are
 * remembered for a while.
 */
const SOURCE_FAILURES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "SOURCE_NOT_FOUND",
  "SOURCE_GONE",
  "SOURCE_FAILED",
  "SOURCE_REDIRECT_FORBIDDEN",
  "SOURCE_TIMEOUT",
  "UNSUPPORTED_IMAGE",
  "IMAGE_DECODE_FAILED",
]);

export function isSourceFailure(error: unknown): error is AppError {
  return isAppError(error) && SOURCE_FAILURES.has(error.code);
}

/**
 * How long a source's failure answers for it. A public URL whose source is missing can be replayed by
 * anyone: without a memory every replay fetched the origin again (and, before keys were refunded,
 * spent the key's transforms). Short, so a source that is fixed shows up soon (as the fallback's
 * 60 s of caching).
 */
export const SOURCE_FAILURE_MEMORY_MS = 30_000;

export interface SourceFailureMemory {
  /** The failure this source had within the memory's time, to answer again without a fetch. */
  recall(sourceKey: string): AppError | null;
  remember(sourceKey: string, error: AppError): void;
}

/**
 * Per source (every variant of it shares the entry: the key carries the project, its purge generation
 * and policy, and the source), in this process, least recently failed out first past `maxEntries`.
 */
export function createSourceFailureMemory(
  options: { now?: () => number; maxEntries?: number; ttlMs?: number } = {},
): SourceFailureMemory {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? SOURCE_FAILURE_MEMORY_MS;
  const failures = new Map<string, { error: WireError; until: number }>();
  return {
    recall(sourceKey) {
      const known = failures.get(sourceKey);
      if (!known) return null;
      if (known.until > now()) return fromWireError(known.error);
      failures.delete(sourceKey);
      return null;
    },
    remember(sourceKey, error) {
      failures.delete(sourceKey);
      failures.set(sourceKey, { error: toWireError(error), until: now() + ttlMs });
      if (failures.size > maxEntries) failures.delete(failures.keys().next().value!);
    },
  };
}

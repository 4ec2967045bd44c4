import { createHash } from "node:crypto";
import type { Counters } from "@/server/coordination/counters";
import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
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

/**
 * What the origin itself said (missing, gone, not an image): the same from any instance, so shared.
 * A timeout or a failed connection can be this instance's own trouble (its DNS, its load): remembered
 * here only, never passed to the others.
 */
const SAID_BY_THE_ORIGIN: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "SOURCE_NOT_FOUND",
  "SOURCE_GONE",
  "UNSUPPORTED_IMAGE",
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
  recall(sourceKey: string): Promise<AppError | null>;
  remember(sourceKey: string, error: AppError): void;
}

export interface SourceFailureMemoryOptions {
  now?: () => number;
  maxEntries?: number;
  ttlMs?: number;
  /**
   * Redis, shared by every instance (null in process): a failure one instance met spares the others'
   * fetches too. Read only when this process remembers nothing, within the failure policy's budget.
   */
  shared?: KeyValue | null;
  counters?: Counters;
}

/**
 * Per source (every variant of it shares the entry: the key carries the project, its purge generation
 * and policy, and the source), in this process, least recently failed out first past `maxEntries`;
 * and in the shared store when there is one, under the key's SHA-256 (a URL can carry tokens).
 */
export function createSourceFailureMemory(options: SourceFailureMemoryOptions = {}): SourceFailureMemory {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? SOURCE_FAILURE_MEMORY_MS;
  const shared = options.shared ?? null;
  const failures = new Map<string, { error: WireError; until: number }>();

  function keep(sourceKey: string, error: WireError, until: number): void {
    failures.delete(sourceKey);
    failures.set(sourceKey, { error, until });
    if (failures.size > maxEntries) failures.delete(failures.keys().next().value!);
  }

  function local(sourceKey: string): AppError | null {
    const known = failures.get(sourceKey);
    if (!known) return null;
    if (known.until > now()) return fromWireError(known.error);
    failures.delete(sourceKey);
    return null;
  }

  async function fromShared(sourceKey: string): Promise<AppError | null> {
    try {
      const key = redisKeys.sourceFailure(digestOf(sourceKey));
      const value = await withBudget("sourceFailureRead", shared!.get(key));
      if (value === null) return null;
      const { error, until } = JSON.parse(value) as { error: WireError; until: number };
      // Kept here no longer than the instance that met it said (and never past this memory's time).
      const ends = Math.min(until, now() + ttlMs);
      if (ends <= now()) return null;
      keep(sourceKey, error, ends);
      return fromWireError(error);
    } catch {
      options.counters?.increment("redis_failure_sourceFailureRead");
      return null;
    }
  }

  return {
    async recall(sourceKey) {
      return local(sourceKey) ?? (shared ? fromShared(sourceKey) : null);
    },
    remember(sourceKey, error) {
      const wire = toWireError(error);
      const until = now() + ttlMs;
      keep(sourceKey, wire, until);
      if (!shared || !SAID_BY_THE_ORIGIN.has(error.code)) return;
      const key = redisKeys.sourceFailure(digestOf(sourceKey));
      const ttlSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
      // Code and public message only: the internal detail can quote a redirect's Location (a query).
      const value = JSON.stringify({ error: { code: wire.code, message: wire.message }, until });
      withBudget("sourceFailureWrite", shared.set(key, value, { ttlSeconds })).catch(() =>
        options.counters?.increment("redis_failure_sourceFailureWrite"),
      );
    },
  };
}

const digestOf = (sourceKey: string) => createHash("sha256").update(sourceKey).digest("base64url");

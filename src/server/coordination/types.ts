/**
 * The narrow slice of Redis the product uses. Two implementations: Upstash REST (shared by every
 * instance) and in-process (the embedded default, single instance only). The same contract tests run
 * against both.
 */
export interface KeyValue {
  get(key: string): Promise<string | null>;
  /** SET with EX (and NX when onlyIfAbsent): true when the value was written. */
  set(key: string, value: string, options: { ttlSeconds: number; onlyIfAbsent?: boolean }): Promise<boolean>;
  del(keys: readonly string[]): Promise<void>;
  /** HINCRBY every field and (re)set the TTL, atomically, in one round trip. */
  incrementHash(key: string, increments: Record<string, number>, ttlSeconds: number): Promise<void>;
  /** HGETALL of a counter hash; empty when the key is absent. */
  getHash(key: string): Promise<Record<string, number>>;
  /** Remaining lifetime in seconds; -2 when absent (as Redis TTL answers). */
  ttl(key: string): Promise<number>;
  ping(): Promise<void>;
  /** INCRBY `by` (default 1), setting the TTL when the key is created; answers the new value. */
  increment(key: string, ttlSeconds: number, by?: number): Promise<number>;
  /** One SCAN page of keys starting with `prefix`; cursor "0" starts and ends a walk. */
  scan(prefix: string, cursor: string, count: number): Promise<{ cursor: string; keys: string[] }>;
  /** Deletes the key only while it holds `value` (a lock released by its owner). */
  deleteIfEquals(key: string, value: string): Promise<boolean>;
  /** Resets the TTL only while the key holds `value` (a lock extended by its owner). */
  expireIfEquals(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Per counter hash, atomically: when no claim is pending, moves every counter under `claim`; then
   * answers the pending claim and its counters (null for an absent hash). Counters incremented after
   * the claim stay outside it. Keys are claimed independently (each may live on another cluster slot).
   */
  claimHashes(keys: readonly string[], claim: string): Promise<Array<HashClaim | null>>;
  /** Drops a claim's counters (only while that claim is pending); the hash disappears when nothing else is left. */
  releaseClaims(claims: ReadonlyArray<{ key: string; claim: string }>): Promise<void>;
}

export interface HashClaim {
  claim: string;
  counters: Record<string, number>;
}

export interface LimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** When the window frees capacity again, in Unix milliseconds. */
  reset: number;
  /** Redis did not answer in time and the request was let through (failure-policy.ts). */
  failedOpen?: boolean;
}

/**
 * `quarterHour`: the sign-in failure window per account (src/server/auth/sign-in-failures.ts); `hour`:
 * the dashboard's per-account and per-team windows (src/server/ratelimit/dashboard-limits.ts).
 */
export type LimitWindow = "minute" | "quarterHour" | "hour" | "day";

/** Sliding-window limits per identifier; a window with a given maximum is one limiter. */
export interface RateLimiter {
  /**
   * Takes `tokens` (default 1) from the window, as @upstash/ratelimit's script does: refused without
   * taking any when the window is full; when it holds fewer than `tokens`, they are taken and the call
   * is refused all the same (the caller asks for no more than it was told remain: token-leases.ts).
   */
  limit(window: LimitWindow, identifier: string, max: number, tokens?: number): Promise<LimitResult>;
  /** Gives back a token `limit` took (the other window refused the request). */
  refund(window: LimitWindow, identifier: string, max: number): Promise<void>;
  /** Administrators: forget an identifier's usage in every window. */
  reset(identifier: string): Promise<void>;
  /** What the identifier has used of the window now, without using any (the alerts read a key's day). */
  used(window: LimitWindow, identifier: string, max: number): Promise<number>;
  /**
   * Loads what the limiter needs into Redis (its script) before the first request, so that request
   * does not spend its budget on NOSCRIPT and a retry. No-op in process.
   */
  warmUp(): Promise<void>;
}

/** A limiter that remembers recent refusals, so a client hammering past its limit costs no round trip. */
export interface MemoRateLimiter extends RateLimiter {
  /** A refusal still in force for this window and maximum, from memory; null when Redis must be asked. */
  knownRefusal(window: LimitWindow, identifier: string, max: number): LimitResult | null;
}

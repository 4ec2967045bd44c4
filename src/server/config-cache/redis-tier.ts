import { failurePolicy, withBudget, type FailureKind } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { Counters } from "@/server/coordination/counters";
import type { KeyValue } from "@/server/coordination/types";
import { describeError, type SampledLog } from "@/server/log";
import type { ConfigStore } from "./config-store";
import { teamShare } from "./fair-share";
import { NO_PURGES, type ApiKeyConfig, type ProjectConfig } from "./model";

const NOT_FOUND = "__NOT_FOUND__";
/**
 * What an invalidation leaves in place of the entry (invalidate.ts), for TTL_SECONDS.configInvalidated.
 * A miss writes back with SET NX, so a load that read Postgres before the change cannot put the old
 * config back while the marker stands; and a load slower than WRITE_BACK_WITHIN_MS (half the marker's
 * life) does not write back at all, so it cannot outlive the marker either.
 */
export const INVALIDATED = "__INVALIDATED__";
const WRITE_BACK_WITHIN_MS = (TTL_SECONDS.configInvalidated * 1000) / 2;

/** ApiKeyConfig as stored in Redis: the secret still sealed, dates as ISO strings. */
type CachedApiKeyConfig = Omit<ApiKeyConfig, "expiresAt" | "revokedAt" | "policy" | "capReached"> & {
  expiresAt: string | null;
  revokedAt: string | null;
  /** Absent from entries written by code before key policies: null is written when a key has none. */
  policy?: ApiKeyConfig["policy"];
  /** Absent from entries written by code before spend caps. */
  capReached?: ApiKeyConfig["capReached"];
};

export interface RedisTierDeps {
  kv: KeyValue;
  logSampled: SampledLog;
  counters: Counters;
}

/**
 * The shared tier between the in-process L1 and Postgres (cache-aside). Hits cost one round trip;
 * misses read the inner store and write back without waiting, only where nothing stands (SET NX: an
 * invalidation's marker is never overwritten); absent keys are cached briefly as `__NOT_FOUND__`. Any
 * Redis failure or slowness falls through to the inner store (failure-policy.ts).
 */
export function createRedisTier(inner: ConfigStore, deps: RedisTierDeps): ConfigStore {
  return {
    getApiKey: (publicKey) =>
      readThrough(deps, redisKeys.apiKeyConfig(publicKey), () => inner.getApiKey(publicKey), {
        encode: (config) =>
          JSON.stringify({ ...config, expiresAt: iso(config.expiresAt), revokedAt: iso(config.revokedAt) }),
        decode: (text) => {
          const cached = JSON.parse(text) as CachedApiKeyConfig;
          // Written by an instance without key policies (a rolling deploy): whether the key has one is
          // unknown, and reading it as none would serve what the policy refuses, until the entry expires.
          // The same for spend caps: a capped key would transform past its cap.
          if (cached.policy === undefined || cached.capReached === undefined) return undefined;
          const { policy, capReached, ...rest } = cached;
          return { ...rest, policy, capReached, expiresAt: date(cached.expiresAt), revokedAt: date(cached.revokedAt) };
        },
      }),
    getProject: (projectId) =>
      readThrough(deps, redisKeys.projectConfig(projectId), () => inner.getProject(projectId), {
        encode: (config: ProjectConfig) => JSON.stringify(config),
        // Entries written before purges existed carry no generations: none were taken yet.
        // Entries written before a field existed read as its default until they expire.
        decode: (text) => {
          const cached = JSON.parse(text) as Partial<ProjectConfig> & { teamId: string };
          return {
            // Until it expires, an entry written before accounts were its share counts the team's.
            account: teamShare(cached.teamId),
            cache: NO_PURGES,
            presets: {},
            presetsOnly: false,
            defaultQuality: null,
            watermark: null,
            fallback: null,
            buckets: {},
            ...cached,
          } as ProjectConfig;
        },
      }),
  };
}

interface Codec<T> {
  encode(value: T): string;
  /** undefined: an entry that cannot be trusted as it stands (written by older code): read the store. */
  decode(text: string): T | undefined;
}

async function readThrough<T>(
  deps: RedisTierDeps,
  key: string,
  load: () => Promise<T | null>,
  codec: Codec<T>,
): Promise<T | null> {
  let cached: string | null = null;
  const started = performance.now();
  try {
    cached = await withBudget("configRead", deps.kv.get(key));
  } catch (error) {
    report(deps, "configRead", error);
    return load();
  }
  const decoded = cached === null || cached === INVALIDATED || cached === NOT_FOUND ? undefined : codec.decode(cached);
  const hit = cached === NOT_FOUND || decoded !== undefined;
  deps.counters.increment(hit ? "config_redis_hit" : "config_redis_miss");
  // Just changed: read Postgres until the marker expires; writing back now could race the change.
  if (cached === INVALIDATED) return load();
  if (cached === NOT_FOUND) return null;
  if (decoded !== undefined) return decoded;
  // An older writer's entry stands until it expires (SET NX would not replace it): the store answers.
  if (cached !== null) return load();

  const value = await load();
  if (performance.now() - started > WRITE_BACK_WITHIN_MS) return value;
  const text = value === null ? NOT_FOUND : codec.encode(value);
  const ttl = value === null ? TTL_SECONDS.configNotFound : jittered(TTL_SECONDS.config);
  withBudget("configWrite", deps.kv.set(key, text, { ttlSeconds: ttl, onlyIfAbsent: true })).catch((error: unknown) =>
    report(deps, "configWrite", error),
  );
  return value;
}

function report(deps: RedisTierDeps, kind: FailureKind, error: unknown): void {
  deps.counters.increment(`redis_failure_${kind}`);
  deps.logSampled(kind, "warn", "redis unavailable", {
    kind,
    policy: failurePolicy[kind].onFailure,
    ...describeError(error),
  });
}

/** ±10 %: entries written together must not all expire in the same second. */
function jittered(seconds: number): number {
  return Math.max(1, Math.round(seconds * (0.9 + Math.random() * 0.2)));
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);
const date = (value: string | null) => (value ? new Date(value) : null);

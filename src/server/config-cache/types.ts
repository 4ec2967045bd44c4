import type { WatermarkConfig } from "./project-images";

/** What the image route needs to know about an API key. The secret stays sealed until verification. */
export interface ApiKeyConfig {
  id: string;
  projectId: string;
  publicKey: string;
  encryptedSecret: string;
  expiresAt: Date | null;
  /** Revoked keys are returned, not hidden, so the route's revocation check is never dead code. */
  revokedAt: Date | null;
  rateLimitPerMinute: number;
  rateLimitPerDay: number;
}

export interface ProjectConfig {
  id: string;
  teamId: string;
  slug: string;
  allowedSourceHosts: string[];
  allowedRefererHosts: string[];
  cache: CacheGenerations;
  /** Preset name → its operations segment (`pr_{name}` in URLs). */
  presets: Record<string, string>;
  /** Only a single preset token is accepted in URLs. */
  presetsOnly: boolean;
  /** The uploaded watermark's settings and hash (its bytes are read by hash, not carried here). */
  watermark: WatermarkConfig | null;
  /** The image served, transformed, when the source fails; null answers the JSON error. */
  fallback: { sha256: string } | null;
  /** Alias → the private bucket `s3/{alias}/{key}` reads, its secret still sealed. */
  buckets: Record<string, BucketConfig>;
}

/** Where a private bucket is: what the dashboard shows and the reader dials. */
export interface BucketTarget {
  endpoint: string;
  region: string;
  bucket: string;
  /** Put before every key read. */
  prefix: string;
  forcePathStyle: boolean;
}

/** A project's private bucket as the image route needs it; the secret opens with the row's id. */
export interface BucketConfig extends BucketTarget {
  id: string;
  accessKeyId: string;
  sealedSecret: string;
  /**
   * Changes when the alias points elsewhere (endpoint, region, bucket, prefix or credentials):
   * part of the variant and source-cache keys, so nothing read from the old bucket answers for it.
   */
  revision: string;
}

/**
 * What purges did (src/server/delivery/result-keys.ts): a source's results are current only when made
 * at its generation, the larger of the project's last whole purge and that source's last purge.
 */
export interface CacheGenerations {
  base: number;
  /** Source (as the request log names it) → generation of its last purge since `base`. */
  sources: Record<string, number>;
}

export const NO_PURGES: CacheGenerations = { base: 0, sources: {} };

/**
 * Read side of the configuration the data plane depends on. The database implementation reads
 * Postgres; the cache-aside implementation (L1 → Redis → Postgres) wraps it behind the same interface.
 */
export interface ConfigStore {
  getApiKey(publicKey: string): Promise<ApiKeyConfig | null>;
  getProject(projectId: string): Promise<ProjectConfig | null>;
}

/**
 * A key's transforms (result-cache misses) per minute and per day when its columns are null. A page of
 * 30 images with 6 srcset widths in 3 negotiated formats is at most 540 variants, all of which a cold CDN
 * may ask for in its first minute: 600 lets it through. 100,000 a day bounds what a leaked key costs
 * (about 3.3 CPU-hours at the 120 ms a 12 MP JPEG takes, docs/benchmarks.md). docs/architecture.md.
 */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_RATE_LIMIT_PER_DAY = 100_000;

/** The limits a key is held to: its own, else the defaults. The image route and the dashboard both ask. */
export function effectiveKeyLimits(key: { rateLimitPerMinute: number | null; rateLimitPerDay: number | null }): {
  perMinute: number;
  perDay: number;
} {
  return {
    perMinute: key.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    perDay: key.rateLimitPerDay ?? DEFAULT_RATE_LIMIT_PER_DAY,
  };
}

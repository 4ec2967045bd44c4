import type { SpendCapName } from "@/lib/schemas/spend-cap";
import type { KeyPolicy } from "@/lib/schemas/key-policy";
import type { QualityLevel } from "@/server/image";
import type { WatermarkConfig } from "./project-images";

// What the image route knows about an API key and a project: the values every configuration tier
// (in process, Redis, Postgres) holds and hands back.

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
  /** What the key may sign beyond the project's rules; null: all the project allows. */
  policy: KeyPolicy | null;
  /** The spend cap the key reached, its value and when its period ends (ms); null: none reached. */
  capReached: ReachedCap | null;
}

export interface ReachedCap {
  cap: SpendCapName;
  limit: number;
  untilMs: number;
}

export interface ProjectConfig {
  id: string;
  teamId: string;
  /**
   * Whose share of the transform slots the project's work counts against (fair-share.ts): the account
   * that owns its team, since teams, like projects, cost nothing to make.
   */
  account: string;
  slug: string;
  allowedSourceHosts: string[];
  allowedRefererHosts: string[];
  cache: CacheGenerations;
  /** Preset name → its operations segment (`pr_{name}` in URLs). */
  presets: Record<string, string>;
  /** Only a single preset token is accepted in URLs. */
  presetsOnly: boolean;
  /** q_auto's level for URLs that name no quality (q_, q_auto, maxbytes_); null: the formats' defaults. */
  defaultQuality: QualityLevel | null;
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

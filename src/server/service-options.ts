import path from "node:path";
import {
  databasePooled,
  isProduction,
  migratesAtStart,
  previewOrigins,
  publicBaseUrl,
  transformProcessEnv,
  type Env,
} from "@/env";
import type { OAuthCredentials } from "@/server/auth/create-auth";
import { loadMetricsToken, loadSecrets, type Secrets } from "@/server/config/secrets";
import type { UpstashSettings } from "@/server/coordination/upstash-client";
import type { DatabaseHandle, DatabaseTarget } from "@/server/db/client";
import type { TransformIsolation } from "@/server/image/isolation/process-pool";
export type { TransformIsolation } from "@/server/image/isolation/process-pool";
import type { Logger } from "@/server/log";
import type { FetchLimits } from "@/server/source";
import type { RequestLogOptions } from "@/server/usage/request-log";
import type { ResultStoreSettings } from "@/server/result-store/types";
import type { DashboardOptions } from "@/server/api/plane";
import type { JobsOptions } from "@/server/cron/plane";
import type { DeliveryOptions } from "@/server/delivery/plane";
import { VERCEL_RESPONSE_MAX_BYTES } from "@/server/delivery/settings";

/** Everything createServices is built from: each plane's settings (its plane.ts) and the shared clients'. */
export interface ServiceOptions extends DeliveryOptions, DashboardOptions, JobsOptions {
  database: DatabaseTarget | DatabaseHandle;
  /** The built embedded database process script: an embedded database directory is served from it. */
  databaseProcess?: string;
  secrets: Secrets;
  fetchLimits: FetchLimits;
  /** L1 config cache lifetime; 0 reads the next tier on every request. */
  configCacheTtlMs: number;
  /** Upstash REST endpoint; null keeps coordination in process (single instance). */
  redis: UpstashSettings | null;
  /** Client-address windows the in-process limiter keeps (no Redis). */
  addressWindowsMax?: number;
  requestLog?: Partial<RequestLogOptions>;
  /** Who may read /api/metrics. Default off. */
  metrics?: MetricsAccess;
  /** How this instance runs, as /api/health reports it. Default: embedded with PGlite, else self-hosted. */
  deployment?: Deployment;
  logger?: Logger;
  now?: () => Date;
}

export type Deployment = "embedded" | "self-hosted" | "vercel";

/**
 * Who may read /api/metrics: nobody (404), or a bearer token's holder. Never anyone: the counters
 * (every tenant's traffic, cache tiers, failures) are not for the public, and a reverse proxy in front
 * of the embedded default's loopback makes them so.
 */
export type MetricsAccess = "off" | { token: string };

/** Off in production until a token is set, or when told `off`; elsewhere a generated token (loadMetricsToken). */
const metricsAccess = (token: string | null): MetricsAccess => (token === null ? "off" : { token });

/** Written by scripts/build-transform-worker.mjs (`npm run build`, and the test setup). */
export const TRANSFORM_WORKER_ENTRY = "dist/transform-worker.mjs";
export const DOWNLOAD_THREAD_ENTRY = "dist/source-download-thread.mjs";
export const EMBEDDED_DATABASE_ENTRY = "dist/embedded-database.mjs";
/** The bundled fonts for SVG text (DejaVu, from the dejavu-fonts-ttf package), as fontconfig reads them. */
export const FONT_CONFIG = "assets/fonts.conf";

/**
 * What the command line opens: the embedded database under OPTSTUFF_DATA_DIR, or PostgreSQL over the
 * direct URL when there is one (a command that changes the schema, `migrate`, needs it).
 */
export function databaseTargetFromEnv(e: Env): DatabaseTarget {
  if (e.DATABASE_URL === undefined)
    return {
      kind: "pglite",
      dataDir: path.resolve(e.OPTSTUFF_DATA_DIR),
      sharedBuffersMb: e.OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB,
    };
  if (e.DATABASE_URL_UNPOOLED) return { kind: "postgres", url: e.DATABASE_URL_UNPOOLED };
  return { kind: "postgres", url: e.DATABASE_URL, pooled: databasePooled(e) };
}

/**
 * What the server opens: its pool over DATABASE_URL; migrations at start over the direct URL, or,
 * where the server does not migrate (Vercel's cold starts), a refusal when the database is behind.
 */
function serverDatabaseTarget(e: Env): DatabaseTarget {
  const command = databaseTargetFromEnv(e);
  if (command.kind !== "postgres" || e.DATABASE_URL === undefined) return command;
  const migrate = migratesAtStart(e);
  return {
    kind: "postgres",
    url: e.DATABASE_URL,
    pooled: databasePooled(e),
    migrationUrl: e.DATABASE_URL_UNPOOLED,
    migrate,
    requireCurrent: !migrate,
  };
}

/** Maps the validated environment onto service options: the only place that knows both. */
export function serviceOptionsFromEnv(e: Env): ServiceOptions & { database: DatabaseTarget } {
  const embedded = e.DATABASE_URL === undefined;
  return {
    database: serverDatabaseTarget(e),
    // The server runs PGlite in a process of its own (db/embedded/process-main.ts).
    databaseProcess: embedded ? path.resolve(EMBEDDED_DATABASE_ENTRY) : undefined,
    secrets: loadSecrets(e),
    fetchLimits: {
      maxBytes: e.OPTSTUFF_MAX_SOURCE_BYTES,
      timeoutMs: e.OPTSTUFF_FETCH_TIMEOUT_MS,
      maxRedirects: e.OPTSTUFF_MAX_REDIRECTS,
      allowLoopback: e.OPTSTUFF_ALLOW_LOOPBACK_SOURCES,
    },
    transformLimits: {
      maxInputPixels: e.OPTSTUFF_MAX_INPUT_PIXELS,
      maxOutputDimension: e.OPTSTUFF_MAX_OUTPUT_DIMENSION,
      maxOutputPixels: e.OPTSTUFF_MAX_OUTPUT_PIXELS,
      maxAvifPixels: e.OPTSTUFF_MAX_AVIF_PIXELS,
      maxFrames: e.OPTSTUFF_MAX_FRAMES,
      timeoutMs: e.OPTSTUFF_TRANSFORM_TIMEOUT_MS,
      webpEffort: e.OPTSTUFF_WEBP_EFFORT,
    },
    // The embedded default serves the committed demo images so the quickstart works offline.
    localSourceRoot: e.OPTSTUFF_LOCAL_SOURCE_ROOT
      ? path.resolve(e.OPTSTUFF_LOCAL_SOURCE_ROOT)
      : embedded
        ? path.resolve("demo")
        : null,
    transformConcurrency: e.OPTSTUFF_TRANSFORM_CONCURRENCY,
    transformFairShare: e.OPTSTUFF_TRANSFORM_FAIR_SHARE === "on",
    transformIsolation: transformIsolationFromEnv(e),
    // A script next to the build, which Vercel's functions do not carry (as for the transform processes).
    sourceDownloadThread: e.VERCEL === undefined ? path.resolve(DOWNLOAD_THREAD_ENTRY) : null,
    transformQueue: e.OPTSTUFF_TRANSFORM_QUEUE,
    resultCacheBytes: e.OPTSTUFF_RESULT_CACHE_BYTES,
    avifLaterMinPixels: e.OPTSTUFF_AVIF_LATER_MIN_PIXELS,
    qualityLater: e.OPTSTUFF_QUALITY_LATER === "on",
    fontConfigFile: e.OPTSTUFF_SVG_FONTS === "bundled" ? path.resolve(FONT_CONFIG) : null,
    responseMaxBytes: e.OPTSTUFF_RESPONSE_MAX_BYTES ?? (e.VERCEL !== undefined ? VERCEL_RESPONSE_MAX_BYTES : 0),
    resultStore: resultStoreFromEnv(e),
    sourceCacheBytes: e.OPTSTUFF_SOURCE_CACHE_BYTES,
    configCacheTtlMs: e.OPTSTUFF_CONFIG_CACHE_TTL_MS,
    redis: redisFromEnv(e),
    authFailuresPerMinute: e.OPTSTUFF_AUTH_FAILURES_PER_MINUTE,
    addressWindowsMax: e.OPTSTUFF_ADDRESS_WINDOWS_MAX,
    clientAddresses: {
      trustedHops: e.OPTSTUFF_TRUSTED_PROXY_HOPS,
      vercel: e.VERCEL !== undefined,
      cdn:
        e.OPTSTUFF_CDN_ADDRESS_HEADER && e.OPTSTUFF_CDN_SECRET
          ? { addressHeader: e.OPTSTUFF_CDN_ADDRESS_HEADER, secret: e.OPTSTUFF_CDN_SECRET }
          : null,
    },
    addressLimits: {
      requestsPerMinute: e.OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE,
      transformsPerMinute: e.OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE,
    },
    publicBaseUrl: publicBaseUrl(e),
    trustedOrigins: [
      ...(e.OPTSTUFF_TRUSTED_ORIGINS ?? "")
        .split(",")
        .map((o) => o.trim())
        .filter(Boolean),
      // A preview answers at its deployment's host and its branch's.
      ...previewOrigins(e),
      // The embedded default answers on loopback under either name.
      ...(isProduction(e) ? [] : [`http://localhost:${e.PORT}`, `http://127.0.0.1:${e.PORT}`]),
    ],
    oauth: {
      github: credentials(e.GITHUB_CLIENT_ID, e.GITHUB_CLIENT_SECRET),
      google: credentials(e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET),
    },
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
    registration: { mode: e.OPTSTUFF_REGISTRATION, emailDomains: e.OPTSTUFF_REGISTRATION_EMAIL_DOMAINS },
    requestLog: {
      successSampleRate: e.OPTSTUFF_REQUEST_LOG_SAMPLE_RATE,
      failuresPerProjectMinute: e.OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE,
      successesPerProjectMinute: e.OPTSTUFF_REQUEST_LOG_SUCCESSES_PER_MINUTE,
    },
    auditRetentionDays: e.OPTSTUFF_AUDIT_RETENTION_DAYS,
    deployment: e.VERCEL !== undefined ? "vercel" : embedded ? "embedded" : "self-hosted",
    metrics: metricsAccess(loadMetricsToken(e)),
  };
}

/** Transform processes (null: transforms run in the server's process, as on Vercel by default). */
export function transformIsolationFromEnv(e: Env): TransformIsolation | null {
  const inProcess =
    e.OPTSTUFF_TRANSFORM_ISOLATION === "none" || (e.OPTSTUFF_TRANSFORM_ISOLATION === "auto" && e.VERCEL !== undefined);
  if (inProcess) return null;
  return {
    entry: path.resolve(TRANSFORM_WORKER_ENTRY),
    memoryLimitBytes: e.OPTSTUFF_TRANSFORM_MEMORY_MB * 2 ** 20,
    jobsPerProcess: e.OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS,
    env: transformProcessEnv(),
    nice: e.OPTSTUFF_TRANSFORM_NICE,
  };
}

export function redisFromEnv(e: Env): UpstashSettings | null {
  if (e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN)
    return { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN };
  // Vercel's marketplace integration names the same pair this way.
  return e.KV_REST_API_URL && e.KV_REST_API_TOKEN ? { url: e.KV_REST_API_URL, token: e.KV_REST_API_TOKEN } : null;
}

export function resultStoreFromEnv(e: Env): ResultStoreSettings | null {
  const kind =
    e.OPTSTUFF_RESULT_STORE === "auto"
      ? e.OPTSTUFF_RESULT_STORE_S3_BUCKET
        ? "s3"
        : e.VERCEL === undefined
          ? "files"
          : "none"
      : e.OPTSTUFF_RESULT_STORE;
  if (kind === "none") return null;
  const maxBytes = e.OPTSTUFF_RESULT_STORE_BYTES;
  if (kind === "files") return { kind, maxBytes, root: path.join(path.resolve(e.OPTSTUFF_DATA_DIR), "results") };
  return {
    kind,
    maxBytes,
    bucket: e.OPTSTUFF_RESULT_STORE_S3_BUCKET!,
    prefix: e.OPTSTUFF_RESULT_STORE_S3_PREFIX,
    endpoint: e.OPTSTUFF_RESULT_STORE_S3_ENDPOINT,
    region: e.OPTSTUFF_RESULT_STORE_S3_REGION,
    accessKeyId: e.OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID,
    secretAccessKey: e.OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY,
    forcePathStyle:
      e.OPTSTUFF_RESULT_STORE_S3_PATH_STYLE === "auto"
        ? e.OPTSTUFF_RESULT_STORE_S3_ENDPOINT !== undefined
        : e.OPTSTUFF_RESULT_STORE_S3_PATH_STYLE === "on",
  };
}

function credentials(clientId: string | undefined, clientSecret: string | undefined): OAuthCredentials | null {
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

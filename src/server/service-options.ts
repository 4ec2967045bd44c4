import path from "node:path";
import { isProduction, publicBaseUrl, type Env } from "@/env";
import type { OAuthCredentials } from "@/server/auth/create-auth";
import { loadSecrets, type Secrets } from "@/server/config/secrets";
import type { UpstashSettings } from "@/server/coordination/upstash-client";
import type { DatabaseHandle, DatabaseTarget } from "@/server/db/client";
import type { TransformLimits } from "@/server/image";
import type { Logger } from "@/server/log";
import type { FetchLimits, NetDeps } from "@/server/source";
import type { RequestLogOptions } from "@/server/usage/request-log";

export interface ServiceOptions {
  database: DatabaseTarget | DatabaseHandle;
  secrets: Secrets;
  fetchLimits: FetchLimits;
  transformLimits: TransformLimits;
  localSourceRoot: string | null;
  transformConcurrency: number;
  transformQueue: number;
  resultCacheBytes: number;
  /** L1 config cache lifetime; 0 reads the next tier on every request. */
  configCacheTtlMs: number;
  /** Upstash REST endpoint; null keeps coordination in process (single instance). */
  redis: UpstashSettings | null;
  /** Authentication failures per client address and minute before it is refused for the minute. */
  authFailuresPerMinute: number;
  /** Proxies in front of the app whose X-Forwarded-For entries are skipped. */
  trustedProxyHops: number;
  /** Default http://127.0.0.1:3000. */
  publicBaseUrl?: string;
  /** Origins allowed to sign in besides publicBaseUrl. */
  trustedOrigins?: string[];
  oauth?: { github: OAuthCredentials | null; google: OAuthCredentials | null };
  smtp?: { url: string; from: string } | null;
  requestLog?: Partial<RequestLogOptions>;
  metricsToken?: string | null;
  logger?: Logger;
  net?: NetDeps;
  now?: () => Date;
}

/** Maps the validated environment onto service options: the only place that knows both. */
export function serviceOptionsFromEnv(e: Env): ServiceOptions & { database: DatabaseTarget } {
  const embedded = e.DATABASE_URL === undefined;
  return {
    database: embedded
      ? { kind: "pglite", dataDir: path.resolve(e.OPTSTUFF_DATA_DIR) }
      : { kind: "postgres", url: e.DATABASE_URL! },
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
    transformQueue: e.OPTSTUFF_TRANSFORM_QUEUE,
    resultCacheBytes: e.OPTSTUFF_RESULT_CACHE_BYTES,
    configCacheTtlMs: e.OPTSTUFF_CONFIG_CACHE_TTL_MS,
    redis:
      e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN
        ? { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN }
        : null,
    authFailuresPerMinute: e.OPTSTUFF_AUTH_FAILURES_PER_MINUTE,
    trustedProxyHops: e.OPTSTUFF_TRUSTED_PROXY_HOPS,
    publicBaseUrl: publicBaseUrl(e),
    trustedOrigins: [
      ...(e.OPTSTUFF_TRUSTED_ORIGINS ?? "").split(",").map((o) => o.trim()).filter(Boolean),
      // The embedded default answers on loopback under either name.
      ...(isProduction(e) ? [] : [`http://localhost:${e.PORT}`, `http://127.0.0.1:${e.PORT}`]),
    ],
    oauth: { github: credentials(e.GITHUB_CLIENT_ID, e.GITHUB_CLIENT_SECRET), google: credentials(e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET) },
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
    requestLog: { successSampleRate: e.OPTSTUFF_REQUEST_LOG_SAMPLE_RATE, failuresPerProjectMinute: e.OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE },
    metricsToken: e.OPTSTUFF_METRICS_TOKEN ?? null,
  };
}

function credentials(clientId: string | undefined, clientSecret: string | undefined): OAuthCredentials | null {
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

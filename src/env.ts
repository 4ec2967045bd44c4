import os from "node:os";
import { z } from "zod";
import { vercelProblems } from "./env-vercel";

/**
 * The only reader of process.env. Parsed once, typed, validated; every option carries its default.
 * Secrets are checked separately (src/server/config/secrets.ts) because on the embedded default they
 * are generated, while in production their absence must stop the process.
 */
const flag = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .optional()
  .transform((v) => v === "1" || v === "true" || v === "yes");
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== "" ? v.trim() : undefined));

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Set by Vercel on its deployments. */
  VERCEL: optionalText,
  /** Set by Vercel: production, preview or development (`optstuff migrate --only-production-deployment`). */
  VERCEL_ENV: optionalText,
  /** Set by Vercel: the production domain, the public base URL when OPTSTUFF_PUBLIC_BASE_URL is not set. */
  VERCEL_PROJECT_PRODUCTION_URL: optionalText,
  /** Set by Vercel: this deployment's host, and its branch's; a preview is signed in to at either. */
  VERCEL_URL: optionalText,
  VERCEL_BRANCH_URL: optionalText,
  /** PostgreSQL URL; when absent the embedded PGlite under OPTSTUFF_DATA_DIR is used. */
  DATABASE_URL: optionalText,
  /**
   * The direct URL when DATABASE_URL goes through a pooler (Neon's integration sets both): migrations
   * and the command line use it, since a session's advisory lock means nothing through a pooler in
   * transaction mode.
   */
  DATABASE_URL_UNPOOLED: optionalText,
  /**
   * Whether DATABASE_URL goes through a pooler in transaction mode (PgBouncer, Neon's `-pooler` host,
   * Supabase's port 6543). `auto` (default): on Vercel, or a host containing `-pooler`. Pooled: no
   * named prepared statements, no migrations through it.
   */
  OPTSTUFF_DATABASE_POOLED: z.enum(["auto", "on", "off"]).default("auto"),
  /**
   * Apply pending migrations when the server starts (over the direct URL). `auto` (default): on,
   * except on Vercel, where a cold start must not migrate (a deploy step does: `optstuff migrate`).
   * Off, a server whose database is behind refuses to start, saying so.
   */
  OPTSTUFF_MIGRATE_AT_START: z.enum(["auto", "on", "off"]).default("auto"),
  /** Where the embedded database and generated secrets live. Default `.data`. */
  OPTSTUFF_DATA_DIR: z.string().default(".data"),
  /**
   * The embedded database's buffer pool in MB (PostgreSQL's shared_buffers), resident for the process's
   * life. Default 16, which holds a small deployment's working set; PGlite's own default is 128.
   */
  OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(1024).default(16),
  /** Master secret for API-key secrets (AES-256-GCM via HKDF). Generated on the embedded default. */
  OPTSTUFF_KEY_ENCRYPTION_SECRET: optionalText,
  /** The previous master, still accepted for opening secrets while rows are re-sealed. */
  OPTSTUFF_KEY_ENCRYPTION_SECRET_PREVIOUS: optionalText,
  BETTER_AUTH_SECRET: optionalText,
  CRON_SECRET: optionalText,
  UPSTASH_REDIS_REST_URL: optionalText,
  UPSTASH_REDIS_REST_TOKEN: optionalText,
  /** What Vercel's marketplace integration of Upstash sets: read when the UPSTASH_ pair is not given. */
  KV_REST_API_URL: optionalText,
  KV_REST_API_TOKEN: optionalText,
  /**
   * A CDN in front that names the client in a header of its own (`cf-connecting-ip`, `fastly-client-ip`,
   * `true-client-ip`) and proves itself by sending `x-optstuff-cdn-secret: $OPTSTUFF_CDN_SECRET`
   * (at least 32 characters). Requests without the secret are counted by the address that reached us.
   */
  OPTSTUFF_CDN_ADDRESS_HEADER: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, "a header name: letters, digits and dashes")
      .transform((name) => name.toLowerCase())
      .optional(),
  ),
  OPTSTUFF_CDN_SECRET: optionalText.pipe(z.string().min(32, "at least 32 characters").optional()),
  /**
   * Public origin of this server: printed URLs, snippets, invitation links, and the dashboard's sign-in
   * origin check and cookies. Default https://$VERCEL_PROJECT_PRODUCTION_URL on Vercel, else
   * http://127.0.0.1:$PORT.
   */
  OPTSTUFF_PUBLIC_BASE_URL: optionalText,
  PORT: int(3000, 1),
  /** Further origins the dashboard accepts sign-ins from (comma-separated), besides the public base URL. */
  OPTSTUFF_TRUSTED_ORIGINS: optionalText,
  /** GitHub sign-in appears only when both are set. */
  GITHUB_CLIENT_ID: optionalText,
  GITHUB_CLIENT_SECRET: optionalText,
  /** Google sign-in appears only when both are set. */
  GOOGLE_CLIENT_ID: optionalText,
  GOOGLE_CLIENT_SECRET: optionalText,
  /**
   * Who may create an account. `invite-only` (default): the first account (the instance's owner), then
   * only people with an invitation link; `open`: anyone (a hosted service). See docs/self-hosting.md.
   */
  OPTSTUFF_REGISTRATION: z.enum(["open", "invite-only"]).default("invite-only"),
  /**
   * E-mail domains (comma-separated, e.g. `example.com`) whose addresses may register without an
   * invitation, when GitHub or Google has verified the address. With it, `open` admits only these.
   * Default none.
   */
  OPTSTUFF_REGISTRATION_EMAIL_DOMAINS: z
    .string()
    .optional()
    .transform((v, ctx) => emailDomainList(v ?? "", ctx)),
  /** SMTP server for invitation emails (`smtp://user:pass@host:587`); without it links are shown to copy. */
  SMTP_URL: optionalText,
  /** Sender of invitation emails. Default `OptStuff <no-reply@localhost>`. */
  SMTP_FROM: z.string().default("OptStuff <no-reply@localhost>"),
  /** Directory served as `local/<path>` sources; off unless set (the embedded default sets demo/). */
  OPTSTUFF_LOCAL_SOURCE_ROOT: optionalText,
  /** Allow loopback origins (development and tests only). Default off. */
  OPTSTUFF_ALLOW_LOOPBACK_SOURCES: flag,
  /** Largest source in bytes. Default 25 MB. */
  OPTSTUFF_MAX_SOURCE_BYTES: int(25 * 1024 * 1024, 1),
  /** Download budget in ms. Default 10 s. */
  OPTSTUFF_FETCH_TIMEOUT_MS: int(10_000, 1),
  /** Redirects followed per source. Default 3. */
  OPTSTUFF_MAX_REDIRECTS: int(3),
  /** Input pixels over all frames. Default 50 MP. */
  OPTSTUFF_MAX_INPUT_PIXELS: int(50_000_000, 1),
  /** Largest output side. Default 8192. */
  OPTSTUFF_MAX_OUTPUT_DIMENSION: int(8192, 1),
  /** Largest output area of one frame, in pixels; larger results are scaled down to fit. Default 24 MP. */
  OPTSTUFF_MAX_OUTPUT_PIXELS: int(24_000_000, 1),
  /** Largest AVIF output area (its encoder cannot be interrupted); f_auto answers WebP above it. Default 8294400 (3840×2160). */
  OPTSTUFF_MAX_AVIF_PIXELS: int(3840 * 2160, 1),
  /** Animation frames decoded at most. Default 500. */
  OPTSTUFF_MAX_FRAMES: int(500, 1),
  /** Transform budget in ms. Default 20 s. */
  OPTSTUFF_TRANSFORM_TIMEOUT_MS: int(20_000, 1000),
  /**
   * Concurrent transforms. Default: twice the number of cores, so a core is never idle while a
   * finished transform's JavaScript (response, next download) runs (measured in docs/benchmarks.md).
   */
  OPTSTUFF_TRANSFORM_CONCURRENCY: int(2 * os.availableParallelism(), 1),
  /**
   * Where transforms run. `process` (default, except on Vercel): in child processes that are killed
   * past the time budget or the memory cap, because some native calls (AVIF encode, SVG filters) ignore
   * libvips' timeout. `none`: in this process (Vercel's default: its function limits bound each call).
   */
  OPTSTUFF_TRANSFORM_ISOLATION: z.enum(["auto", "process", "none"]).default("auto"),
  /**
   * Share transform slots and queue fairly between teams (round robin, a slot kept for quiet teams, a
   * team's extra jobs at lower CPU priority). Default on; off gives one first-come queue.
   */
  OPTSTUFF_TRANSFORM_FAIR_SHARE: z.enum(["on", "off"]).default("on"),
  /** Resident memory a transform process may reach before its job is ended (413). Default 512 MB. */
  OPTSTUFF_TRANSFORM_MEMORY_MB: int(512, 64),
  /**
   * CPU niceness of the transform processes (0–19). Default 10: the server's own thread (cache hits,
   * 304s, the dashboard) wins the CPU from encodes when the cores are busy (cache hits' p99 under a
   * transform load 49.8 → 33.0 ms, bench:cache); alone, transforms run as fast. A tenant's extra jobs
   * run at 19 whatever this says.
   */
  OPTSTUFF_TRANSFORM_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** libuv's thread pool (read by Node itself; checked at startup against the transform slots). */
  UV_THREADPOOL_SIZE: z.coerce.number().int().min(1).optional(),
  /**
   * The fonts SVG text is drawn with: `bundled` (default; DejaVu, the same on every machine, and the
   * only fonts on Vercel) or `system` (the machine's fontconfig).
   */
  OPTSTUFF_SVG_FONTS: z.enum(["bundled", "system"]).default("bundled"),
  /** WebP encoder effort 0–6. Default 4; 2 is 30–40 % faster for a few percent more bytes. */
  OPTSTUFF_WEBP_EFFORT: z.coerce.number().int().min(0).max(6).default(4),
  /** Transforms waiting beyond the concurrent ones before 503. Default 64. */
  OPTSTUFF_TRANSFORM_QUEUE: int(64),
  /**
   * In-process config cache lifetime in ms. Default 1000: a key revoked or a project changed from
   * another process is seen here within this bound; 0 disables the cache.
   */
  OPTSTUFF_CONFIG_CACHE_TTL_MS: int(1000),
  /** Failed authentications per client address and minute before that address is refused. Default 60. */
  OPTSTUFF_AUTH_FAILURES_PER_MINUTE: int(60, 1),
  OPTSTUFF_ADDRESS_WINDOWS_MAX: z.coerce.number().int().min(100).max(10_000_000).default(100_000),
  /**
   * Reverse proxies in front of the app, each appending the address it received the request from to
   * X-Forwarded-For: the client is the entry this many places from the right. Default 0: the socket's
   * address, as `npm start` (scripts/server.mjs) hands it over; on Vercel at least 1.
   */
  OPTSTUFF_TRUSTED_PROXY_HOPS: int(0),
  /**
   * Image requests per client address and minute, cache hits and 304s included: a visitor replaying
   * URLs is throttled alone. Default 1200 (docs/architecture.md, rate limiting); 0 turns it off.
   */
  OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE: int(1200),
  /**
   * Transforms per client address and minute, so one visitor cannot spend a key's transforms by
   * itself. Default 120 (a fifth of a key's default 600); 0 turns it off.
   */
  OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE: int(120),
  /**
   * The largest image body answered directly, in bytes. A larger output is answered with a 307 to a
   * signed URL of its object in the S3 result bucket, or refused (413 OUTPUT_TOO_LARGE) without one.
   * Default 4 400 000 on Vercel (its functions answer at most 4.5 MB), no cap elsewhere; 0: no cap.
   */
  OPTSTUFF_RESPONSE_MAX_BYTES: z.coerce.number().int().min(0).optional(),
  /** In-memory cache of recent results, in bytes. Default 64 MB; 0 disables it. */
  OPTSTUFF_RESULT_CACHE_BYTES: int(64 * 1024 * 1024),
  /**
   * Where results are kept across restarts and shared between instances (docs/caching.md). `auto`
   * (default): the S3-compatible bucket when OPTSTUFF_RESULT_STORE_S3_BUCKET is set, else files under
   * OPTSTUFF_DATA_DIR, except on Vercel (read-only filesystem), where only a bucket can be used.
   */
  OPTSTUFF_RESULT_STORE: z.enum(["auto", "files", "s3", "none"]).default("auto"),
  /** Bytes the result store keeps, least recently used evicted first (S3: oldest written). Default 2 GiB. */
  OPTSTUFF_RESULT_STORE_BYTES: int(2 * 1024 ** 3, 1024 * 1024),
  OPTSTUFF_RESULT_STORE_S3_BUCKET: optionalText,
  /** Anything but AWS: MinIO, R2 (`https://<account>.r2.cloudflarestorage.com`), … Default AWS. */
  OPTSTUFF_RESULT_STORE_S3_ENDPOINT: optionalText,
  /** Default us-east-1 (R2: `auto`). */
  OPTSTUFF_RESULT_STORE_S3_REGION: z.string().default("us-east-1"),
  /** Without both, the SDK's default chain (instance role, AWS_* variables). */
  OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID: optionalText,
  OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY: optionalText,
  /** Key prefix inside the bucket, so one bucket can hold other things. Default `results/`. */
  OPTSTUFF_RESULT_STORE_S3_PREFIX: z.string().default("results/"),
  /** Path-style URLs (MinIO and most self-hosted servers). Default on when an endpoint is set. */
  OPTSTUFF_RESULT_STORE_S3_PATH_STYLE: z.enum(["auto", "on", "off"]).default("auto"),
  /**
   * Recently downloaded sources kept so one photo's widths share a download, as files in a folder of
   * the server's on /dev/shm (tmpfs: memory, but off the server's heap). Default 64 MB; 0 disables it.
   */
  OPTSTUFF_SOURCE_CACHE_BYTES: int(64 * 1024 * 1024),
  /** Share of successful image requests written to the request log, 0 to 1. Default 1 (all). */
  OPTSTUFF_REQUEST_LOG_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(1),
  /** Failed requests logged per project and minute; the rest are only counted. Default 60. */
  OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE: int(60),
  OPTSTUFF_REQUEST_LOG_SUCCESSES_PER_MINUTE: int(120),
  /**
   * Runs the usage flush every minute and the daily maintenance in this process. `auto` (default): on,
   * except on Vercel where Vercel Cron calls the routes. Safe on several instances: a lock elects one.
   */
  OPTSTUFF_SCHEDULER: z.enum(["auto", "on", "off"]).default("auto"),
  /**
   * Bearer token for /api/metrics, or `off`; without it the endpoint is off in production, open on the
   * embedded default. Required on Vercel (a token, or `off`).
   */
  OPTSTUFF_METRICS_TOKEN: optionalText,
});

export type Env = z.infer<typeof envSchema>;

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/** `Corp.Example, @team.example.` → `["corp.example", "team.example"]`; anything else is refused by name. */
function emailDomainList(text: string, ctx: z.RefinementCtx): string[] {
  const domains = text
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^@/, "").replace(/\.$/, ""))
    .filter(Boolean);
  for (const domain of domains)
    if (!DOMAIN.test(domain)) ctx.addIssue({ code: "custom", message: `"${domain}" is not an e-mail domain` });
  return [...new Set(domains)];
}

/** One variable the environment got wrong, and what is wrong with it (never its value: it may be a secret). */
export interface EnvironmentProblem {
  variable: string;
  problem: string;
}

/**
 * Next bundles the instrumentation hook apart from each route, so a running server can hold several
 * copies of this module; a registered symbol is the same in all of them (as for AppError).
 */
const ENVIRONMENT_ERROR = Symbol.for("optstuff.EnvironmentError");

/** The environment cannot be used: startup prints the message (one line per variable) and stops. */
export class EnvironmentError extends Error {
  readonly [ENVIRONMENT_ERROR] = true;
  readonly problems: readonly EnvironmentProblem[];

  constructor(problems: readonly EnvironmentProblem[]) {
    super(`Invalid environment:\n${problems.map((p) => `  ${p.variable}: ${p.problem}`).join("\n")}`);
    this.name = "EnvironmentError";
    this.problems = problems;
  }

  /** The variables to fix, in the order reported. */
  get variables(): string[] {
    return [...new Set(this.problems.map((p) => p.variable))];
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [ENVIRONMENT_ERROR]?: unknown })[ENVIRONMENT_ERROR] === true
    );
  }
}

/**
 * Variables that only work together. Half of the Upstash pair would otherwise start with rate limits
 * and caches kept in process while the operator believes every instance shares them.
 */
const PAIRS: Array<[keyof Env, keyof Env]> = [
  ["UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN"],
  ["OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID", "OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY"],
  ["KV_REST_API_URL", "KV_REST_API_TOKEN"],
  ["OPTSTUFF_CDN_ADDRESS_HEADER", "OPTSTUFF_CDN_SECRET"],
];

function unpaired(given: Record<string, string>): EnvironmentProblem[] {
  const set = (name: string) => given[name] !== undefined && given[name].trim() !== "";
  return PAIRS.flatMap(([a, b]) => {
    if (set(a) && !set(b))
      return [{ variable: b, problem: `missing: ${a} is set, and the two work only together (set both or neither)` }];
    if (set(b) && !set(a))
      return [{ variable: a, problem: `missing: ${b} is set, and the two work only together (set both or neither)` }];
    return [];
  });
}

/** Migrations need a direct connection: a pooled DATABASE_URL alone cannot carry them at start. */
function migrationProblems(e: Env): EnvironmentProblem[] {
  if (!e.DATABASE_URL || !migratesAtStart(e) || !databasePooled(e) || e.DATABASE_URL_UNPOOLED) return [];
  return [
    {
      variable: "DATABASE_URL_UNPOOLED",
      problem:
        "missing: DATABASE_URL goes through a pooler, where a migration's lock cannot hold; set the direct URL here, or OPTSTUFF_MIGRATE_AT_START=off and run `optstuff migrate` on the direct URL as a deploy step",
    },
  ];
}

/** DATABASE_URL goes through a pooler in transaction mode (see OPTSTUFF_DATABASE_POOLED). */
export function databasePooled(e: Env): boolean {
  if (e.OPTSTUFF_DATABASE_POOLED !== "auto") return e.OPTSTUFF_DATABASE_POOLED === "on";
  if (e.VERCEL !== undefined) return true;
  try {
    return new URL(e.DATABASE_URL ?? "").hostname.includes("-pooler");
  } catch {
    return false;
  }
}

export function migratesAtStart(e: Env): boolean {
  return e.OPTSTUFF_MIGRATE_AT_START === "auto" ? e.VERCEL === undefined : e.OPTSTUFF_MIGRATE_AT_START === "on";
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty assignment (as copied from .env.example) means "use the default".
  const given = Object.fromEntries(
    Object.entries(source).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""),
  );
  const parsed = envSchema.safeParse(given);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((i) => ({ variable: i.path.join("."), problem: i.message }))),
    ...unpaired(given),
    ...(parsed.success && parsed.data.OPTSTUFF_RESULT_STORE === "s3" && !parsed.data.OPTSTUFF_RESULT_STORE_S3_BUCKET
      ? [{ variable: "OPTSTUFF_RESULT_STORE_S3_BUCKET", problem: "missing: OPTSTUFF_RESULT_STORE is s3" }]
      : []),
    ...(parsed.success ? vercelProblems(parsed.data) : []),
    ...(parsed.success ? migrationProblems(parsed.data) : []),
  ];
  if (problems.length > 0 || !parsed.success) throw new EnvironmentError(problems);
  return parsed.data;
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

export function publicBaseUrl(e: Env): string {
  if (e.OPTSTUFF_PUBLIC_BASE_URL) return e.OPTSTUFF_PUBLIC_BASE_URL.replace(/\/+$/, "");
  // A preview is not reached at the production domain: its sign-in would refuse its own pages' origin.
  const [preview] = previewOrigins(e);
  if (preview) return preview;
  if (e.VERCEL_PROJECT_PRODUCTION_URL) return `https://${e.VERCEL_PROJECT_PRODUCTION_URL}`;
  return `http://127.0.0.1:${e.PORT}`;
}

/** A Vercel preview's own origins, its branch's first (stable across its deployments); none elsewhere. */
export function previewOrigins(e: Env): string[] {
  if (e.VERCEL === undefined || e.VERCEL_ENV !== "preview") return [];
  return [e.VERCEL_BRANCH_URL, e.VERCEL_URL].filter((host) => host !== undefined).map((host) => `https://${host}`);
}

/**
 * The environment of a transform process: only what the allocator and libvips read. It parses hostile
 * bytes, so it gets no secret, database URL or token (src/server/image/isolation/).
 */
export function transformProcessEnv(source: Record<string, string | undefined> = process.env): Record<string, string> {
  const kept = Object.entries(source).filter(([name]) => TRANSFORM_PROCESS_ENV.test(name));
  return Object.fromEntries(kept.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

// FONTCONFIG_*: the machine's fonts, for OPTSTUFF_SVG_FONTS=system (bundled fonts replace them).
const TRANSFORM_PROCESS_ENV =
  /^(MALLOC_ARENA_MAX|MALLOC_TRIM_THRESHOLD_|LD_PRELOAD|TMPDIR|LANG|LC_ALL|VIPS_[A-Z_]+|FONTCONFIG_FILE|FONTCONFIG_PATH)$/;

/** Production means secrets must be given, never generated. */
export function isProduction(e: Env): boolean {
  return e.VERCEL !== undefined || (e.NODE_ENV === "production" && e.DATABASE_URL !== undefined);
}

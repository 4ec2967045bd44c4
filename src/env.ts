import { z } from "zod";
import { auditSettings } from "./server/audit/settings";
import { authSettings } from "./server/auth/settings";
import { platformSettings } from "./server/config/platform-settings";
import { secretSettings } from "./server/config/secret-settings";
import { serverSettings } from "./server/config/server-settings";
import type { Setting, SettingValue } from "./server/config/setting";
import { configCacheSettings } from "./server/config-cache/settings";
import { coordinationSettings } from "./server/coordination/settings";
import { schedulerSettings } from "./server/cron/settings";
import { databasePooled, databaseSettings, migratesAtStart } from "./server/db/settings";
import { deliverySettings } from "./server/delivery/settings";
import { imageSettings } from "./server/image/settings";
import { mailSettings } from "./server/mail/settings";
import { metricsSettings } from "./server/metrics/settings";
import { rateLimitSettings } from "./server/ratelimit/settings";
import { resultStoreSettings } from "./server/result-store/settings";
import { registrationSettings } from "./server/tenancy/settings";
import { requestLogSettings } from "./server/usage/settings";
import { sourceSettings } from "./server/source/settings";
import { tracingSettings } from "./server/telemetry/settings";
import { vercelProblems } from "./env-vercel";

/**
 * The only reader of process.env. Each module declares its variables in a table next to its options
 * (parser with bounds, default, one line of documentation); this module assembles them, parses the
 * environment once and keeps the checks that span variables. .env.example and docs/self-hosting.md are
 * generated from the same tables (scripts/docs/settings.ts). Secrets are checked separately
 * (src/server/config/secrets.ts): on the embedded default they are generated, in production their
 * absence stops the process.
 */
export const SETTING_GROUPS = [
  serverSettings,
  databaseSettings,
  secretSettings,
  coordinationSettings,
  configCacheSettings,
  rateLimitSettings,
  authSettings,
  registrationSettings,
  mailSettings,
  sourceSettings,
  imageSettings,
  deliverySettings,
  resultStoreSettings,
  requestLogSettings,
  auditSettings,
  schedulerSettings,
  metricsSettings,
  tracingSettings,
  platformSettings,
] as const;

type AllSettings = UnionToIntersection<(typeof SETTING_GROUPS)[number]["settings"]>;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

export type Env = { [Name in keyof AllSettings]: SettingValue<AllSettings[Name]> };

const envSchema = z.object(
  Object.fromEntries(
    SETTING_GROUPS.flatMap((g) => Object.entries(g.settings as Record<string, Setting<unknown>>)).map(
      ([name, setting]) => [name, setting.schema],
    ),
  ),
);

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

/**
 * One shared Redis: two would split rate limits and caches between them without a word. Vercel's
 * marketplace sets `REDIS_URL` beside `KV_REST_API_*` for one database (redisOf reads the REST pair);
 * an operator who sets both `REDIS_URL` and the `UPSTASH_` pair has to choose.
 */
function redisProblems(given: Record<string, string>): EnvironmentProblem[] {
  if (!given.REDIS_URL || !given.UPSTASH_REDIS_REST_URL) return [];
  return [
    {
      variable: "REDIS_URL",
      problem: "set one shared Redis: REDIS_URL (over TCP) or the Upstash REST pair, not both",
    },
  ];
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

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty assignment (as copied from .env.example) means "use the default".
  const given = Object.fromEntries(
    Object.entries(source).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""),
  );
  const parsed = envSchema.safeParse(given) as z.ZodSafeParseResult<Env>;
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((i) => ({ variable: i.path.join("."), problem: i.message }))),
    ...unpaired(given),
    ...redisProblems(given),
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

/** The variables publicBaseUrl is made of. */
const ADDRESS_VARIABLES = [
  "OPTSTUFF_PUBLIC_BASE_URL",
  "HOST",
  "PORT",
  "VERCEL",
  "VERCEL_ENV",
  "VERCEL_PROJECT_PRODUCTION_URL",
] as const;

/** Whether this process's environment says where the server answers (sets any of publicBaseUrl's variables). */
export function addressInEnvironment(source: Record<string, string | undefined> = process.env): boolean {
  return ADDRESS_VARIABLES.some((name) => source[name] !== undefined && source[name] !== "");
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

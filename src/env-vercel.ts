/** The settings these checks read (src/env.ts parses them; no import back, to keep the graph acyclic). */
interface VercelSettings {
  VERCEL?: string;
  DATABASE_URL?: string;
  UPSTASH_REDIS_REST_URL?: string;
  KV_REST_API_URL?: string;
  CRON_SECRET?: string;
  OPTSTUFF_METRICS_TOKEN?: string;
  OPTSTUFF_RESULT_STORE: string;
  OPTSTUFF_TRANSFORM_ISOLATION: string;
  OPTSTUFF_SCHEDULER: string;
  OPTSTUFF_RESULT_STORE_S3_BUCKET?: string;
  OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID?: string;
  OPTSTUFF_TRUSTED_PROXY_HOPS: number;
}

interface Problem {
  variable: string;
  problem: string;
}

/**
 * Values that work on a server of one's own and cannot in a function, which is frozen between
 * requests and whose files are read-only (all three are the `auto` default's choice off Vercel).
 */
const UNWORKABLE = [
  {
    variable: "OPTSTUFF_TRANSFORM_ISOLATION",
    value: "process",
    problem:
      "transform processes would run beside a function that is frozen between requests with whatever it started, under one memory limit for all of them; Vercel's own duration and memory limits bound each transform there: unset it (`auto`) or set `none`",
  },
  {
    variable: "OPTSTUFF_RESULT_STORE",
    value: "files",
    problem:
      "a function's files are read-only and its instance's own; set OPTSTUFF_RESULT_STORE_S3_BUCKET with `auto` or `s3`, or set `none`",
  },
  {
    variable: "OPTSTUFF_SCHEDULER",
    value: "on",
    problem:
      "a function is frozen between requests, so no timer of its runs the jobs; Vercel Cron calls their routes (vercel.json): unset it (`auto`) or set `off`",
  },
] as const satisfies ReadonlyArray<{ variable: keyof VercelSettings; value: string; problem: string }>;

/**
 * What a deployment on Vercel needs that elsewhere has a working default. Each of these used to start
 * and then fail quietly: the embedded database on a read-only file system (an error naming no
 * variable), limits and caches kept per function instance, cron routes answering 503 while usage
 * aged out, an S3 store signing with Vercel's placeholder AWS variables. Transform processes, result
 * files and the in-process scheduler, asked for by name, were taken without a word there. Vercel
 * starts functions with its variables set (VERCEL=1), so the refusal names the variable in the
 * function's log at its start.
 */
export function vercelProblems(e: VercelSettings): Problem[] {
  if (e.VERCEL === undefined) return [];
  const problems: Problem[] = [];
  const missing = (variable: string, problem: string) =>
    problems.push({ variable, problem: `missing on Vercel: ${problem}` });
  if (!e.DATABASE_URL)
    missing(
      "DATABASE_URL",
      "functions cannot keep the embedded database (read-only file system, an instance per request); set a PostgreSQL URL (Neon's integration sets it)",
    );
  if (!(e.UPSTASH_REDIS_REST_URL ?? e.KV_REST_API_URL))
    missing(
      "UPSTASH_REDIS_REST_URL",
      "without Redis every function instance keeps its own rate limits and caches; add Upstash Redis (its marketplace integration's KV_REST_API_URL and KV_REST_API_TOKEN are read too)",
    );
  if (!e.CRON_SECRET)
    missing(
      "CRON_SECRET",
      "Vercel Cron authenticates with it; without it the cron routes refuse and buffered usage is lost after 14 days",
    );
  if (!e.OPTSTUFF_METRICS_TOKEN)
    missing("OPTSTUFF_METRICS_TOKEN", "set the token /api/metrics asks for, or `off` to turn the endpoint off");
  const s3 =
    e.OPTSTUFF_RESULT_STORE === "s3" || (e.OPTSTUFF_RESULT_STORE === "auto" && e.OPTSTUFF_RESULT_STORE_S3_BUCKET);
  if (s3 && !e.OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID)
    missing(
      "OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID",
      "the SDK's default chain would sign with Vercel's own AWS variables, which no bucket of yours accepts; set the key pair",
    );
  for (const { variable, value, problem } of UNWORKABLE)
    if (e[variable] === value) problems.push({ variable, problem: `\`${value}\` cannot work on Vercel: ${problem}` });
  if (e.OPTSTUFF_TRUSTED_PROXY_HOPS > 1)
    problems.push({
      variable: "OPTSTUFF_TRUSTED_PROXY_HOPS",
      problem:
        "has no effect on Vercel, whose edge replaces X-Forwarded-For with the one address it saw; for a CDN in front set OPTSTUFF_CDN_ADDRESS_HEADER and OPTSTUFF_CDN_SECRET",
    });
  return problems;
}

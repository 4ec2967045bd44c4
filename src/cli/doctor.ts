import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync, statfsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { EnvironmentError, transformProcessEnv, type Env } from "@/env";
import { isProduction } from "@/server/config/platform";
import { loadSecrets, metricsTokenSource } from "@/server/config/secrets";
import type { CommandAddress } from "@/server/config/server-address";
import { createCoordination } from "@/server/coordination/create-coordination";
import { openDatabase } from "@/server/db/client";
import { DatabaseInUseError } from "@/server/db/embedded-lock";
import { pendingMigrations } from "@/server/db/migrations";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { createProcessPool } from "@/server/image/isolation/process-pool";
import { createResultStore } from "@/server/result-store/create-store";
import { rootMessage } from "./errors";
import { redisOf, redisTransportText } from "@/server/coordination/settings";
import { databaseTargetOf } from "@/server/db/target";
import { transformIsolationOf } from "@/server/image/isolation/settings";
import { resultStoreOf } from "@/server/result-store/settings";

export interface Finding {
  check: string;
  status: "ok" | "warn" | "fail";
  /** In words, for the operator: what was found and, when it is not ok, what to do. */
  detail: string;
}

type Check = {
  name: string;
  /** Where to look when the check fails, after what failed. */
  hint?: string;
  run(e: Env, address: () => CommandAddress): Promise<Omit<Finding, "check">>;
};

/** What doctor reads: the environment, and the address every command prints. */
export interface DoctorContext {
  env(): Env;
  address(): CommandAddress;
}

const ok = (detail: string) => ({ status: "ok" as const, detail });
const warn = (detail: string) => ({ status: "warn" as const, detail });
const fail = (detail: string) => ({ status: "fail" as const, detail });

/** Each dependency the server needs, checked the way the server uses it, then the server itself; nothing is written. */
const checks: Check[] = [
  {
    name: "secrets",
    run: async (e) => {
      if (isProduction(e)) {
        loadSecrets(e); // in production this only reads the environment, and throws naming what is missing
        return ok("given by the environment, as production requires");
      }
      const file = path.join(path.resolve(e.OPTSTUFF_DATA_DIR), "secrets.json");
      if (!existsSync(file)) return ok(`not generated yet: the first start writes them to ${file} (mode 0600)`);
      JSON.parse(readFileSync(file, "utf8"));
      return ok(`generated, in ${file}`);
    },
  },
  {
    // Where the operator finds the token a scraper sends; the token itself is never printed.
    name: "metrics",
    run: async (e) => {
      const source = metricsTokenSource(e);
      if (!source) return ok("/api/metrics is off (404): set OPTSTUFF_METRICS_TOKEN to scrape it");
      if (source.from === "environment") return ok("/api/metrics asks for OPTSTUFF_METRICS_TOKEN as a bearer token");
      return existsSync(source.file)
        ? ok(`/api/metrics asks for the bearer token in ${source.file}`)
        : ok(`/api/metrics will ask for a bearer token the first start writes to ${source.file} (mode 0600)`);
    },
  },
  {
    name: "database",
    hint: "check DATABASE_URL, or OPTSTUFF_DATA_DIR for the embedded database",
    run: async (e) => {
      const target = databaseTargetOf(e);
      if (target.kind === "pglite" && !existsSync(path.join(target.dataDir!, "pglite")))
        return ok(`embedded, not made yet: the first start makes it in ${target.dataDir}`);
      let handle;
      try {
        handle = await openDatabase({
          ...target,
          migrate: false,
          ...(target.kind === "pglite" && { owner: { role: '"optstuff doctor"', onCompromised: () => {} } }),
        });
      } catch (error) {
        if (error instanceof DatabaseInUseError) return ok(`${error.message} (another command holds it for now)`);
        throw error;
      }
      try {
        const behind = await pendingMigrations(handle.db);
        const where = target.kind === "pglite" ? `embedded, in ${target.dataDir}` : "PostgreSQL (DATABASE_URL)";
        return behind > 0
          ? warn(`${where}: ${behind} migration(s) behind; the server applies them when it starts`)
          : ok(`${where}: answers, schema current`);
      } finally {
        await handle.close();
      }
    },
  },
  {
    name: "redis",
    hint: "check REDIS_URL, or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN; without Redis, leave them unset",
    run: async (e) => {
      const settings = redisOf(e);
      if (!settings)
        return ok("not configured: rate limits and caches are kept in the server's process (run one instance)");
      const started = performance.now();
      const coordination = createCoordination(settings);
      try {
        await withTimeout(coordination.kv.ping(), 5000, "no answer within 5 s");
      } finally {
        await coordination.close();
      }
      return ok(`${redisTransportText(settings)} answers (${Math.round(performance.now() - started)} ms)`);
    },
  },
  {
    name: "object store",
    hint: "check the OPTSTUFF_RESULT_STORE_* variables",
    run: async (e) => {
      const settings = resultStoreOf(e);
      if (!settings) return ok("none: results are kept in memory only (each instance transforms on its own)");
      if (settings.kind === "files") {
        const existing = nearestExisting(settings.root);
        accessSync(existing, constants.W_OK);
        return ok(`files in ${settings.root}${existing === settings.root ? "" : " (made at first write)"}, writable`);
      }
      // Any names do for a key that is never written: a throwaway secret keeps the check free of side effects.
      const store = await createResultStore(settings, { masterSecret: randomBytes(32).toString("base64url") });
      try {
        // A read of a key that is never written: proves the endpoint, the bucket and the credentials.
        await store.get("optstuff-doctor/absent");
        return ok(
          `bucket ${settings.bucket} answers${settings.endpoint ? ` at ${new URL(settings.endpoint).host}` : ""}`,
        );
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "scratch space",
    run: async () => {
      const shm = existsSync("/dev/shm") ? freeBytes("/dev/shm") : 0;
      const where = shm >= 512 * 2 ** 20 ? "/dev/shm" : os.tmpdir();
      accessSync(where, constants.W_OK);
      const free = freeBytes(where);
      const text = `${where}, ${Math.round(free / 2 ** 20)} MB free`;
      return free < 256 * 2 ** 20 ? warn(`${text}: sources and outputs pass through it; give it more room`) : ok(text);
    },
  },
  {
    name: "transform worker",
    run: async (e) => {
      const isolation = transformIsolationOf(e, transformProcessEnv());
      const input = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#c33" } })
        .png()
        .toBuffer();
      const ops = parseOperations("w_4,f_webp");
      if (!isolation) return ok("transforms run in the server's process (OPTSTUFF_TRANSFORM_ISOLATION)");
      if (!existsSync(isolation.entry)) return fail(`${isolation.entry} is not built: npm run build writes it`);
      const pool = createProcessPool({ entry: isolation.entry, memoryLimitBytes: isolation.memoryLimitBytes });
      const started = performance.now();
      try {
        const result = await pool.transform(input, ops, { accept: null }, DEFAULT_TRANSFORM_LIMITS);
        return result.width === 4
          ? ok(`a transform process made a ${result.format} in ${Math.round(performance.now() - started)} ms`)
          : fail(`a transform process answered a ${result.width} px image for 4 px`);
      } finally {
        await pool.close();
      }
    },
  },
  {
    // A stopped server is a warning, not a failure: doctor checks what the server needs, before a first
    // start too, and its exit code says whether that works. A server that answers as something else,
    // or says it cannot serve, is a failure.
    name: "server",
    hint: "check OPTSTUFF_PUBLIC_BASE_URL, or HOST and PORT",
    run: async (e, address) => checkServer(address(), e),
  },
];

const SERVER_TIMEOUT_MS = 5000;

/** A GET of /api/health where the commands say the server answers; nothing else is sent. */
async function checkServer({ baseUrl, from }: CommandAddress, e: Env): Promise<Omit<Finding, "check">> {
  const where = {
    environment: "as this environment's OPTSTUFF_PUBLIC_BASE_URL, HOST and PORT give it",
    server: `where the last start on ${path.resolve(e.OPTSTUFF_DATA_DIR)} said it answers`,
    defaults: `the default address: no server has started on ${path.resolve(e.OPTSTUFF_DATA_DIR)} yet`,
  }[from];
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(SERVER_TIMEOUT_MS) });
  } catch (error) {
    if (errorCode(error) === "ECONNREFUSED")
      return warn(`not running: nothing answers at ${baseUrl} (${where}); npm start starts it`);
    const why =
      error instanceof DOMException && error.name === "TimeoutError"
        ? `no answer within ${SERVER_TIMEOUT_MS / 1000} s`
        : rootMessage(error);
    return warn(`base URL not reachable from here: ${baseUrl} (${where}): ${why}`);
  }
  const report = (await response.json().catch(() => null)) as { status?: unknown; mode?: unknown } | null;
  if (!report || !["ok", "degraded", "unavailable"].includes(String(report.status)))
    return fail(
      `something else answers at ${baseUrl} (${where}): /api/health gave HTTP ${response.status}; check OPTSTUFF_PUBLIC_BASE_URL, or HOST and PORT`,
    );
  if (report.status === "unavailable")
    return fail(
      `answers at ${baseUrl} but reports itself unavailable: its database does not answer (its log says why)`,
    );
  const mode = typeof report.mode === "string" ? `, ${report.mode}` : "";
  return report.status === "degraded"
    ? warn(`answers at ${baseUrl}${mode}, degraded: its Redis does not answer, so limits and caches are skipped`)
    : ok(`answers at ${baseUrl}${mode}`);
}

/** A refused connection's code, through fetch's wrapping (and the per-address errors of a dual-stack attempt). */
function errorCode(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code } = current as NodeJS.ErrnoException;
    if (code) return code;
    if (current instanceof AggregateError) return current.errors.map(errorCode).find(Boolean);
  }
  return undefined;
}

/** Configuration first: when the environment is invalid nothing else can be read from it. */
export async function runDoctor(ctx: DoctorContext): Promise<Finding[]> {
  let e: Env;
  try {
    e = ctx.env();
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    return [{ check: "configuration", status: "fail", detail: error.message.replace(/\n\s*/g, " ") }];
  }
  const findings: Finding[] = [{ check: "configuration", status: "ok", detail: describe(e) }];
  for (const check of checks) {
    try {
      findings.push({ check: check.name, ...(await check.run(e, ctx.address)) });
    } catch (error) {
      const detail = `${rootMessage(error)}${check.hint ? ` (${check.hint})` : ""}`;
      findings.push({ check: check.name, status: "fail", detail });
    }
  }
  return findings;
}

function describe(e: Env): string {
  const mode = e.DATABASE_URL === undefined ? "embedded default" : "PostgreSQL";
  return `valid (${mode}${isProduction(e) ? ", production" : ""}; data directory ${path.resolve(e.OPTSTUFF_DATA_DIR)})`;
}

function nearestExisting(directory: string): string {
  let current = path.resolve(directory);
  while (!existsSync(current)) current = path.dirname(current);
  return current;
}

function freeBytes(directory: string): number {
  const { bavail, bsize } = statfsSync(directory);
  return bavail * bsize;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]).finally(() => clearTimeout(timer));
}

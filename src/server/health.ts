import type { KeyValue } from "@/server/coordination/types";
import { bootLogger, describeError, type Logger } from "@/server/log";

type Check = { ok: true; latencyMs: number } | { ok: false; error: "timeout" | "unreachable" };
/** Redis is optional: not configured is a normal single-instance setup, not a failure. */
type RedisCheck = { configured: false } | ({ configured: true } & Check);

export interface HealthReport {
  /**
   * `degraded`: the database answers but Redis does not. The image route serves on regardless (rate
   * limits let through, caches skipped: docs/redis-schema.md), so the instance stays in rotation.
   */
  status: "ok" | "degraded" | "unavailable";
  /** How the instance runs: embedded (PGlite, in-process coordination), self-hosted or vercel. */
  mode?: "embedded" | "self-hosted" | "vercel";
  checks?: { database: Check; redis?: RedisCheck };
}

/** What readiness looks at: the services satisfy it as they are. */
export interface HealthDeps {
  database: { ping(): Promise<void> };
  coordination: { redis: KeyValue | null };
  logger: Logger;
  deployment: NonNullable<HealthReport["mode"]>;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * Readiness: each dependency answers a trivial query within a budget, the two at once. The answer names
 * a failure (timeout or unreachable) but never details it, nor where a dependency lives; the log gets
 * the cause with its stack.
 */
export async function checkHealth(
  getServices: () => Promise<HealthDeps>,
  fallbackLogger: Logger = bootLogger,
): Promise<HealthReport> {
  let services: HealthDeps;
  try {
    services = await withTimeout(getServices());
  } catch (error) {
    fallbackLogger.log("error", "health check failed", { check: "services", ...describeError(error) });
    return { status: "unavailable", checks: { database: failed(error) } };
  }
  const { logger } = services;
  const [database, redis] = await Promise.all([
    timed(
      () => services.database.ping(),
      (error) => logger.log("error", "health check failed", { check: "database", ...describeError(error) }),
    ),
    checkRedis(services.coordination.redis, logger),
  ]);
  const status = !database.ok ? "unavailable" : redis.configured && !redis.ok ? "degraded" : "ok";
  return { status, mode: services.deployment, checks: { database, redis } };
}

async function checkRedis(kv: KeyValue | null, logger: Logger): Promise<RedisCheck> {
  if (!kv) return { configured: false };
  // warn: the failure policy serves without Redis; the image route's own lines say what it costs.
  const check = await timed(
    () => kv.ping(),
    (error) => logger.log("warn", "health check failed", { check: "redis", ...describeError(error) }),
  );
  return { configured: true, ...check };
}

async function timed(ping: () => Promise<void>, onFailure: (error: unknown) => void): Promise<Check> {
  const started = performance.now();
  try {
    await withTimeout(ping());
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    onFailure(error);
    return failed(error);
  }
}

function failed(error: unknown): Check {
  return { ok: false, error: error instanceof TimeoutError ? "timeout" : "unreachable" };
}

class TimeoutError extends Error {
  constructor() {
    super(`no answer within ${CHECK_TIMEOUT_MS} ms`);
    this.name = "TimeoutError";
  }
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError()), CHECK_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv, type Env } from "@/env";

/**
 * Settings as the environment gives them: a value per variable, undefined to leave one unset. Tests
 * build their services from these through the same mapping production runs (src/env.ts, each
 * module's settings); docs/self-hosting.md lists every knob.
 */
export type TestSettings = Partial<Record<keyof Env, string | undefined>>;

export const DEMO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../demo");

/** A shared Redis as a test names it: over TCP, or through the Upstash-compatible endpoint. */
export type TestRedis = { transport: "tcp"; url: string } | { transport?: "rest"; url: string; token: string };

/**
 * The run's real Redis when it provides one (CI does): over TCP when TEST_REDIS_URL is set, else the
 * Upstash-compatible endpoint; null keeps coordination in process.
 */
export function testRedisSettings(): TestRedis | null {
  if (process.env.TEST_REDIS_URL) return { transport: "tcp", url: process.env.TEST_REDIS_URL };
  const url = process.env.UPSTASH_REDIS_REST_URL;
  const token = process.env.UPSTASH_REDIS_REST_TOKEN;
  return url && token ? { transport: "rest", url, token } : null;
}

/** Coordination through this Redis (null: in process): the one transport set, the other unset. */
export const redisSettings = (redis: TestRedis | null): TestSettings => ({
  REDIS_URL: redis?.transport === "tcp" ? redis.url : undefined,
  UPSTASH_REDIS_REST_URL: redis && redis.transport !== "tcp" ? redis.url : undefined,
  UPSTASH_REDIS_REST_TOKEN: redis && redis.transport !== "tcp" ? redis.token : undefined,
});

/** In-process coordination even where the run provides a Redis. */
export const NO_REDIS = redisSettings(null);

/** A files result store under `dataDir/results` (resultStoreOf). */
export const filesStore = (dataDir: string, maxBytes: number): TestSettings => ({
  OPTSTUFF_RESULT_STORE: "files",
  OPTSTUFF_DATA_DIR: dataDir,
  OPTSTUFF_RESULT_STORE_BYTES: String(maxBytes),
});

/** Where a test's generated files would go: never the repository's .data/. */
const dataDir = () => mkdtempSync(path.join(tmpdir(), "optstuff-test-data-"));

/**
 * What every test app runs with unless it says otherwise: secrets given (nothing generated), every
 * transform in a killable process (`npm start` places ordinary stills in its own process:
 * delivery/placement.test.ts runs that), the demo images as `local/`, loopback origins allowed,
 * open registration (tests sign up many people), no configuration cache (tests change keys and expect
 * the next request to see it), no store, source cache or answer-later unless a test turns them on.
 */
export function testSettings(): TestSettings {
  return {
    OPTSTUFF_KEY_ENCRYPTION_SECRET: "test-master",
    BETTER_AUTH_SECRET: "test-auth",
    CRON_SECRET: "test-cron",
    OPTSTUFF_DATA_DIR: dataDir(),
    OPTSTUFF_METRICS_TOKEN: "off",
    OPTSTUFF_LOCAL_SOURCE_ROOT: DEMO_ROOT,
    OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "1",
    OPTSTUFF_FETCH_TIMEOUT_MS: "5000",
    OPTSTUFF_TRANSFORM_CONCURRENCY: "2",
    OPTSTUFF_TRANSFORM_ISOLATION: "process",
    // The runner's own processes share the cores: transforms at its priority keep timings as measured.
    OPTSTUFF_TRANSFORM_NICE: "0",
    OPTSTUFF_TRANSFORM_QUEUE: "16",
    OPTSTUFF_RESULT_CACHE_BYTES: String(16 * 1024 * 1024),
    OPTSTUFF_RESULT_STORE: "none",
    OPTSTUFF_SOURCE_CACHE_BYTES: "0",
    OPTSTUFF_AVIF_LATER_MIN_PIXELS: "0",
    OPTSTUFF_QUALITY_LATER: "off",
    OPTSTUFF_CONFIG_CACHE_TTL_MS: "0",
    OPTSTUFF_AUTH_FAILURES_PER_MINUTE: "1000",
    OPTSTUFF_REGISTRATION: "open",
    ...redisSettings(testRedisSettings()),
  };
}

/** The test settings with `overrides` on top, parsed as production parses the environment. */
export const testEnv = (overrides: TestSettings = {}): Env => parseEnv({ ...testSettings(), ...overrides });

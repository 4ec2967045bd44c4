import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { parseEnv, type Env } from "@/env";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { createLogger } from "@/server/log";
import { createServices, type Services } from "@/server/services";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { auditTrail, commandLineActor } from "@/server/audit/trail";

/** A folder holding one small PNG, `dot.png`, as the `local/` source root of an in-process benchmark. */
export async function sourceRootWithDot(size: number, background: string, channels: 3 | 4 = 3): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), "optstuff-bench-"));
  const png = await sharp({ create: { width: size, height: size, channels, background } })
    .png()
    .toBuffer();
  writeFileSync(path.join(root, "dot.png"), png);
  return root;
}

/** Settings as the environment gives them: a value per variable, undefined to leave one unset. */
export type BenchSettings = Partial<Record<keyof Env, string | undefined>>;

/**
 * The services of the embedded default in process (transforms on this thread), with the limits a
 * benchmark of the route needs, built as production builds them from its settings; `overrides` names
 * what the benchmark measures. The database: PGlite in memory unless `database` (or DATABASE_URL in
 * `overrides`, or an OPTSTUFF_DATA_DIR with `database: "settings"`) says otherwise.
 */
export async function inProcessServices(
  root: string,
  overrides: BenchSettings = {},
  database: DatabaseHandle | "settings" | null = null,
): Promise<Services> {
  const env = parseEnv({
    OPTSTUFF_KEY_ENCRYPTION_SECRET: "bench",
    BETTER_AUTH_SECRET: "bench",
    CRON_SECRET: "bench",
    OPTSTUFF_METRICS_TOKEN: "off",
    OPTSTUFF_DATA_DIR: path.join(root, ".data"),
    OPTSTUFF_MAX_SOURCE_BYTES: String(1 << 20),
    OPTSTUFF_MAX_REDIRECTS: "0",
    OPTSTUFF_MAX_INPUT_PIXELS: "1000000",
    OPTSTUFF_MAX_OUTPUT_DIMENSION: "100",
    OPTSTUFF_MAX_FRAMES: "1",
    OPTSTUFF_TRANSFORM_TIMEOUT_MS: "5000",
    OPTSTUFF_LOCAL_SOURCE_ROOT: root,
    OPTSTUFF_TRANSFORM_CONCURRENCY: "1",
    OPTSTUFF_TRANSFORM_ISOLATION: "none",
    OPTSTUFF_RESULT_CACHE_BYTES: String(16 * 1024 * 1024),
    OPTSTUFF_RESULT_STORE: "none",
    OPTSTUFF_SOURCE_CACHE_BYTES: "0",
    OPTSTUFF_AUTH_FAILURES_PER_MINUTE: "1000000",
    ...overrides,
  });
  const handle =
    database === "settings"
      ? undefined
      : (database ?? (env.DATABASE_URL ? undefined : await openDatabase({ kind: "pglite", dataDir: null })));
  return createServices(env, { database: handle, logger: createLogger("error") });
}

/** A team, a project on `local/` and a key with the given limits per minute and per day. */
export async function benchProject(
  services: Services,
  slug: string,
  limits: { perMinute: number; perDay: number } = { perMinute: 100_000, perDay: 100_000_000 },
) {
  const made = await bootstrap(
    {
      db: services.database.db,
      secretBox: services.secretBox,
      audit: auditTrail(commandLineActor, () => new Date()),
      now: () => new Date(),
    },
    { teamSlug: slug, projectSlug: slug, keyName: "k", sourceHosts: ["local"] },
  );
  await services.database.db
    .update(apiKeys)
    .set({ rateLimitPerMinute: limits.perMinute, rateLimitPerDay: limits.perDay })
    .where(eq(apiKeys.id, made.key.id));
  return made;
}

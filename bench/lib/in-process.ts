import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { apiKeys } from "@/server/db/schema";
import { createLogger } from "@/server/log";
import type { ServiceOptions } from "@/server/service-options";
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

/**
 * The services of the embedded default in process (PGlite in memory, transforms on this thread), with
 * the limits a benchmark of the route needs; `overrides` names what the benchmark measures.
 */
export function inProcessServices(root: string, overrides: Partial<ServiceOptions> = {}): Promise<Services> {
  return createServices({
    database: { kind: "pglite", dataDir: null },
    secrets: { keyEncryption: "bench", keyEncryptionPrevious: undefined, auth: "bench", cron: "bench" },
    fetchLimits: { maxBytes: 1 << 20, timeoutMs: 5000, maxRedirects: 0, allowLoopback: false },
    transformLimits: {
      ...DEFAULT_TRANSFORM_LIMITS,
      maxInputPixels: 1_000_000,
      maxOutputDimension: 100,
      maxFrames: 1,
      timeoutMs: 5000,
    },
    localSourceRoot: root,
    transformConcurrency: 1,
    transformIsolation: null,
    transformQueue: 64,
    resultCacheBytes: 16 * 1024 * 1024,
    configCacheTtlMs: 1000, // production's L1
    redis: null,
    authFailuresPerMinute: 1_000_000,
    logger: createLogger("error"),
    ...overrides,
  });
}

/** A team, a project on `local/` and a key with the given limits per minute and per day. */
export async function benchProject(
  services: Services,
  slug: string,
  limits: { perMinute: number; perDay: number } = { perMinute: 100_000, perDay: 100_000_000 },
) {
  const made = await bootstrap(
    { db: services.database.db, secretBox: services.secretBox, audit: auditTrail(commandLineActor, () => new Date()) },
    { teamSlug: slug, projectSlug: slug, keyName: "k", sourceHosts: ["local"] },
  );
  await services.database.db
    .update(apiKeys)
    .set({ rateLimitPerMinute: limits.perMinute, rateLimitPerDay: limits.perDay })
    .where(eq(apiKeys.id, made.key.id));
  return made;
}

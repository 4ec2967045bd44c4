import type { Env } from "@/env";
import type { Secrets } from "@/server/config/secrets";
import {
  createConfigInvalidator,
  createDatabaseConfigStore,
  createMemoryTier,
  createRedisTier,
  type CachedConfigStore,
  type ConfigInvalidator,
} from "@/server/config-cache";
import { createCoordination, type Coordination } from "@/server/coordination/create-coordination";
import { createCounters, type Counters } from "@/server/coordination/counters";
import { redisOf } from "@/server/coordination/settings";
import type { DatabaseHandle } from "@/server/db/client";
import { createPublicNames, type PublicNames } from "@/server/delivery/public-names";
import { createSampledLogger, type Logger, type SampledLog } from "@/server/log";
import { createSecretBox, type SecretBox } from "@/server/signing";
import type { NetDeps } from "@/server/source";
import { createWebhookSender, WEBHOOK_TIMEOUT_MS, type WebhookSender } from "@/server/webhooks/sender";
import { auditArchiveOf } from "@/server/audit-stream/archive";
import { createAuditStreamer, type AuditStreamer } from "@/server/audit-stream/streamer";
import { resultStoreOf } from "@/server/result-store/settings";

/**
 * What createServices is given instead of working it out from the settings: what a test, a benchmark
 * or a command truly injects. Everything else comes from the `Env`, as in production.
 */
export interface Seams {
  /** An open database (a test's; one that outlives a restart); otherwise opened from the settings. */
  database?: DatabaseHandle;
  logger?: Logger;
  now?: () => Date;
  /** Network seams for the source fetchers (tests): the download thread is not used with them. */
  net?: NetDeps;
  /** The photo previews are made of (the committed demo photo unless a test says otherwise). */
  previewSample?: string;
}

/** What every plane (delivery, usage, jobs, dashboard) is wired from: the clients they share. */
export interface Shared {
  database: DatabaseHandle;
  secrets: Secrets;
  counters: Counters;
  coordination: Coordination;
  /** L1 → Redis → Postgres. */
  config: CachedConfigStore;
  invalidate: ConfigInvalidator;
  secretBox: SecretBox;
  /** Keyed ETag and Cache-Tag names: what image responses carry and purges answer with. */
  publicNames: PublicNames;
  logger: Logger;
  logSampled: SampledLog;
  now: () => Date;
  /** Sends the teams' webhooks through the sources' address policy (webhooks/sender.ts). */
  webhooks: WebhookSender;
  /** Streams the teams' audit logs to their webhook or the bucket (audit-stream/streamer.ts). */
  auditStream: AuditStreamer;
}

export function createShared(
  env: Env,
  given: { database: DatabaseHandle; secrets: Secrets; logger: Logger; now: () => Date },
): Shared {
  const { database, secrets, logger } = given;
  const counters = createCounters();
  const logSampled = createSampledLogger(logger);
  const coordination = createCoordination(redisOf(env), { counters, maxAddresses: env.OPTSTUFF_ADDRESS_WINDOWS_MAX });
  const { redis } = coordination;
  const truth = createDatabaseConfigStore(database.db);
  // L1 → Redis → Postgres; in process the Redis tier would only duplicate L1.
  const behindL1 = redis ? createRedisTier(truth, { kv: redis, logSampled, counters }) : truth;
  const config = createMemoryTier(behindL1, {
    ttlMs: env.OPTSTUFF_CONFIG_CACHE_TTL_MS,
    maxEntries: env.OPTSTUFF_CONFIG_CACHE_ENTRIES,
    onLookup: (result) => counters.increment(`config_l1_${result}`),
  });
  const secretBox = createSecretBox(secrets.keyEncryption, secrets.keyEncryptionPrevious);
  const post = { allowLoopback: env.OPTSTUFF_ALLOW_LOOPBACK_SOURCES, timeoutMs: WEBHOOK_TIMEOUT_MS };
  return {
    database,
    secrets,
    counters,
    coordination,
    config,
    invalidate: createConfigInvalidator({ l1: config, kv: redis, logger, counters }),
    secretBox,
    webhooks: createWebhookSender({ db: database.db, secretBox, post, now: given.now, logger }),
    auditStream: createAuditStreamer({
      db: database.db,
      secretBox,
      post,
      archive: auditArchiveOf(resultStoreOf(env)),
      now: given.now,
      logger,
    }),
    publicNames: createPublicNames(secrets.keyEncryption),
    logger,
    logSampled,
    now: given.now,
  };
}

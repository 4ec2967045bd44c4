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
import type { DatabaseHandle } from "@/server/db/client";
import { createPublicNames, type PublicNames } from "@/server/delivery/public-names";
import { createSampledLogger, type Logger, type SampledLog } from "@/server/log";
import type { ServiceOptions } from "@/server/service-options";
import { createSecretBox, type SecretBox } from "@/server/signing";

/** What every plane (delivery, usage, jobs, dashboard) is wired from: the clients they share. */
export interface Shared {
  database: DatabaseHandle;
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
}

export function createShared(options: ServiceOptions, database: DatabaseHandle, logger: Logger): Shared {
  const counters = createCounters();
  const logSampled = createSampledLogger(logger);
  const coordination = createCoordination(options.redis, { counters, maxAddresses: options.addressWindowsMax });
  const { redis } = coordination;
  const truth = createDatabaseConfigStore(database.db);
  // L1 → Redis → Postgres; in process the Redis tier would only duplicate L1.
  const behindL1 = redis ? createRedisTier(truth, { kv: redis, logSampled, counters }) : truth;
  const config = createMemoryTier(behindL1, {
    ttlMs: options.configCacheTtlMs,
    maxEntries: 10_000,
    onLookup: (result) => counters.increment(`config_l1_${result}`),
  });
  return {
    database,
    counters,
    coordination,
    config,
    invalidate: createConfigInvalidator({ l1: config, kv: redis, logger, counters }),
    secretBox: createSecretBox(options.secrets.keyEncryption, options.secrets.keyEncryptionPrevious),
    publicNames: createPublicNames(options.secrets.keyEncryption),
    logger,
    logSampled,
    now: options.now ?? (() => new Date()),
  };
}

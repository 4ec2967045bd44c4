import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { Counters } from "@/server/coordination/counters";
import type { KeyValue } from "@/server/coordination/types";
import { describeError, type Logger } from "@/server/log";
import type { CachedConfigStore } from "./memory-tier";
import { INVALIDATED } from "./redis-tier";

export interface ConfigInvalidator {
  /** After a key is updated, rotated or revoked. */
  apiKeys(publicKeys: readonly string[]): Promise<void>;
  /** After project settings change; pass the project's keys too when it is deleted. */
  project(projectId: string, publicKeys?: readonly string[]): Promise<void>;
}

/**
 * Used by every write path (CLI and dashboard). This instance's L1 is cleared at once; the shared
 * Redis entries are replaced by a short-lived marker (not deleted: a delete would let another
 * instance's load, begun before the change, write the old config back; redis-tier.ts), so other
 * instances read fresh data once their L1 entry (≤ 1 s) expires. A Redis failure is logged and counted,
 * never thrown: the database change has happened, and the entry it could not replace expires by itself
 * (≤ 60 s), so the other instances see the change then. Nothing is retried later: by the time a retry
 * ran, there would be nothing left to drop.
 */
export function createConfigInvalidator(deps: {
  /** This process's L1; null in processes that serve no images (the CLI). */
  l1: CachedConfigStore | null;
  kv: KeyValue | null;
  logger: Logger;
  counters: Counters;
}): ConfigInvalidator {
  async function drop(keys: string[]): Promise<void> {
    if (!deps.kv || keys.length === 0) return;
    try {
      const kv = deps.kv;
      await withBudget(
        "invalidation",
        Promise.all(keys.map((key) => kv.set(key, INVALIDATED, { ttlSeconds: TTL_SECONDS.configInvalidated }))),
      );
    } catch (error) {
      deps.counters.increment("redis_failure_invalidation");
      deps.logger.log("error", "cache invalidation failed; other instances see the change when the entry expires", {
        keys: keys.length,
        ...describeError(error),
      });
    }
  }

  return {
    async apiKeys(publicKeys) {
      for (const publicKey of publicKeys) deps.l1?.invalidateApiKey(publicKey);
      await drop(publicKeys.map(redisKeys.apiKeyConfig));
    },
    async project(projectId, publicKeys = []) {
      deps.l1?.invalidateProject(projectId);
      for (const publicKey of publicKeys) deps.l1?.invalidateApiKey(publicKey);
      await drop([redisKeys.projectConfig(projectId), ...publicKeys.map(redisKeys.apiKeyConfig)]);
    },
  };
}

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createConfigInvalidator,
  createDatabaseConfigStore,
  createRedisTier,
  type ConfigStore,
} from "@/server/config-cache";
import { createCoordination } from "@/server/coordination/create-coordination";
import { createCounters } from "@/server/coordination/counters";
import { redisKeys } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import type { DatabaseHandle } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { createLogger, createSampledLogger } from "@/server/log";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestDatabase } from "../../support/database";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { need } from "../../support/services";
import { setupAudit } from "../../support/audit";

const redisServer = need("redis-server");

// The cache-aside race across instances, interleaved step by step on real Redis (and a cluster):
// instance A misses and reads Postgres; the key is revoked and the cache invalidated; then A writes
// back what it read. The revoked key must not come back to life in Redis for the next 60 s.
for (const cluster of [false, true]) {
  const name = `config write-back after an invalidation (${cluster ? "3-master cluster" : "redis-server"})`;
  describe.skipIf(redisServer.skip)(redisServer.title(name), () => {
    let redis: RealRedis;
    let database: DatabaseHandle;
    let kv: KeyValue;
    let publicKey: string;
    const logger = createLogger("error");

    beforeAll(async () => {
      [redis, database] = await Promise.all([startRealRedis({ cluster }), createTestDatabase()]);
      kv = createCoordination(redis.settings).kv;
      const created = await bootstrap(
        { db: database.db, secretBox: createSecretBox("race-master", undefined), audit: setupAudit },
        { teamSlug: "race", projectSlug: "race", keyName: "k" },
      );
      publicKey = created.key.publicKey;
    }, 60_000);

    afterAll(async () => {
      await database?.close();
      await redis?.stop();
    });

    /** An instance's Redis tier over the real database, whose loads can be held after reading. */
    function instance(hold?: Promise<void>) {
      const postgres = createDatabaseConfigStore(database.db);
      const held: ConfigStore = {
        getApiKey: async (key) => {
          const read = await postgres.getApiKey(key);
          await hold; // read before the change, written back after it
          return read;
        },
        getProject: (id) => postgres.getProject(id),
      };
      return createRedisTier(held, { kv, counters: createCounters(), logSampled: createSampledLogger(logger) });
    }

    it("keeps a load that read Postgres before the revocation from writing the old key back", async () => {
      await kv.del([redisKeys.apiKeyConfig(publicKey)]);
      let release!: () => void;
      const a = instance(new Promise<void>((resolve) => (release = resolve)));
      const aRead = a.getApiKey(publicKey); // A: Redis miss, Postgres read (not revoked), held

      await new Promise((resolve) => setTimeout(resolve, 100));
      await database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.publicKey, publicKey));
      await createConfigInvalidator({ l1: null, kv, logger, counters: createCounters() }).apiKeys([publicKey]);

      release();
      expect((await aRead)?.revokedAt).toBeNull(); // A itself answered with what it read
      await new Promise((resolve) => setTimeout(resolve, 300)); // A's write-back is not awaited

      const fresh = await instance().getApiKey(publicKey);
      expect(fresh?.revokedAt).toBeInstanceOf(Date);
      expect(await kv.get(redisKeys.apiKeyConfig(publicKey))).not.toContain('"revokedAt":null');
    });
  });
}

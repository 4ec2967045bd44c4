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
import { createSampledLogger } from "@/server/log";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestDatabase } from "../../support/database";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { need } from "../../support/services";
import { setupAudit } from "../../support/audit";
import { createTestLogger } from "../../support/test-log";

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
    const logger = createTestLogger();

    beforeAll(async () => {
      [redis, database] = await Promise.all([startRealRedis({ cluster }), createTestDatabase()]);
      kv = createCoordination(redis.settings).kv;
      const created = await bootstrap(
        {
          db: database.db,
          secretBox: createSecretBox("race-master", undefined),
          audit: setupAudit,
          now: () => new Date(),
        },
        { teamSlug: "race", projectSlug: "race", keyName: "k" },
      );
      publicKey = created.key.publicKey;
    }, 60_000);

    afterAll(async () => {
      await database?.close();
      await redis?.stop();
    });

    /**
     * An instance's Redis tier over the real database, whose loads can be held after reading: `read`
     * resolves once a load has read Postgres, and `writeBacks` holds each write-back's answer.
     */
    function instance(hold?: Promise<void>) {
      const postgres = createDatabaseConfigStore(database.db);
      let hasRead!: () => void;
      const read = new Promise<void>((resolve) => (hasRead = resolve));
      const held: ConfigStore = {
        getApiKey: async (key) => {
          const value = await postgres.getApiKey(key);
          hasRead();
          await hold; // read before the change, written back after it
          return value;
        },
        getProject: (id) => postgres.getProject(id),
      };
      const writeBacks: Array<Promise<boolean>> = [];
      const watched: KeyValue = {
        ...kv,
        set: (key, value, options) => {
          const written = kv.set(key, value, options);
          writeBacks.push(written);
          return written;
        },
      };
      const tier = createRedisTier(held, {
        kv: watched,
        counters: createCounters(),
        logSampled: createSampledLogger(logger),
      });
      return { tier, read, writeBacks };
    }

    it("keeps a load that read Postgres before the revocation from writing the old key back", async () => {
      await kv.del([redisKeys.apiKeyConfig(publicKey)]);
      let release!: () => void;
      const a = instance(new Promise<void>((resolve) => (release = resolve)));
      const aRead = a.tier.getApiKey(publicKey); // A: Redis miss, Postgres read (not revoked), held
      await a.read; // the state, not a delay: on a busy machine A may not have reached Postgres yet

      await database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.publicKey, publicKey));
      await createConfigInvalidator({ l1: null, kv, logger, counters: createCounters() }).apiKeys([publicKey]);

      release();
      expect((await aRead)?.revokedAt).toBeNull(); // A itself answered with what it read
      // A's write-back is not awaited by its read, but it was started before the read answered: wait for
      // its answer. Refused (SET NX against the invalidation's marker), or not tried at all (a load slower
      // than half the marker's life does not write back).
      expect(await Promise.all(a.writeBacks)).not.toContain(true);

      const fresh = await instance().tier.getApiKey(publicKey);
      expect(fresh?.revokedAt).toBeInstanceOf(Date);
      expect(await kv.get(redisKeys.apiKeyConfig(publicKey))).not.toContain('"revokedAt":null');
    });
  });
}

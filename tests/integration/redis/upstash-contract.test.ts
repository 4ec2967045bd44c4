import { afterAll, beforeAll, describe } from "vitest";
import { createCoordination, type Coordination } from "@/server/coordination/create-coordination";
import { coordinationContract } from "../../contract/coordination";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { need } from "../../support/services";

const redisServer = need("redis-server");

// The contract the in-process implementations pass, on a real redis-server and on a 3-master cluster,
// through the product's own Upstash clients: the key schema works on a cluster unchanged.
for (const cluster of [false, true]) {
  const name = cluster ? "Redis Cluster (3 masters) via the Upstash endpoint" : "redis-server via the Upstash endpoint";
  describe.skipIf(redisServer.skip)(redisServer.title(name), () => {
    let redis: RealRedis;
    let coordination: Coordination;
    beforeAll(async () => {
      redis = await startRealRedis({ cluster });
      // Exactness is the limiter's property; the 50 ms fail-open budget is policy, tested in the outage
      // suite. A loaded CI machine must not turn a slow answer into a pass-through here.
      coordination = createCoordination(redis.settings, { rateLimitTimeoutMs: 5_000 });
      await coordination.limiter.warmUp();
    }, 60_000);
    afterAll(async () => redis?.stop());

    coordinationContract(name, () => ({
      kv: coordination.kv,
      limiter: coordination.limiter,
      advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    }));
  });
}

import { afterAll, beforeAll, describe } from "vitest";
import { createCoordination, type Coordination } from "@/server/coordination/create-coordination";
import { coordinationContract } from "../../contract/coordination";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { need } from "../../support/services";

const redisServer = need("redis-server");

// The contract the in-process and Upstash implementations pass, on a real redis-server reached over
// TCP (REDIS_URL) with the product's own client: a self-hosted fleet needs no REST endpoint.
const name = "redis-server over TCP (REDIS_URL)";
describe.skipIf(redisServer.skip)(redisServer.title(name), () => {
  let redis: RealRedis;
  let coordination: Coordination;
  beforeAll(async () => {
    redis = await startRealRedis();
    // As in the Upstash suite: exactness is the limiter's property, the fail-open budget is policy.
    coordination = createCoordination(redis.tcp, { rateLimitTimeoutMs: 5_000 });
    await coordination.limiter.warmUp();
  }, 60_000);
  afterAll(async () => {
    await coordination?.close();
    await redis?.stop();
  });

  coordinationContract(name, () => ({
    kv: coordination.kv,
    limiter: coordination.limiter,
    advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }));
});

import { createTestApp, type TestApp } from "./app";
import { makePng } from "./images";
import { serveBytes, startOrigin, type Origin } from "./origin";
import { startRealRedis, type RealRedis } from "./redis";
import { redisSettings, type TestSettings } from "./settings";

export interface RedisApp {
  redis: RealRedis;
  /** Serves one 20×20 PNG at /a.png. */
  origin: Origin;
  app: TestApp;
  close(): Promise<void>;
}

/**
 * A test app on a real redis-server behind the Upstash-compatible endpoint (which counts what it
 * receives), its limiter's scripts loaded, and an origin with one small PNG: the world of the tests
 * that count what a request costs Redis.
 */
export async function startRedisApp(env: TestSettings = {}): Promise<RedisApp> {
  const redis = await startRealRedis();
  const origin = await startOrigin({ "/a.png": serveBytes(await makePng(20, 20), "image/png") });
  const app = await createTestApp({ sourceHosts: [origin.host], env: { ...redisSettings(redis.settings), ...env } });
  await app.services.coordination.limiter.warmUp();
  return {
    redis,
    origin,
    app,
    close: async () => {
      await app.close();
      await origin.close();
      await redis.stop();
    },
  };
}

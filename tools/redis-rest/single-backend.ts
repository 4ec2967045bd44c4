// One redis-server behind one ioredis connection.
import { Redis, type Pipeline } from "ioredis";
import { callRaw, runTransaction, settle, type RedisBackend } from "./backend";

export interface RedisAddress {
  host: string;
  port: number;
}

export async function createSingleBackend(address: RedisAddress): Promise<RedisBackend> {
  const redis = new Redis({
    ...address,
    // RESP2 is what Upstash answers with (maps as flat arrays, doubles as strings); ioredis 6 defaults to 3.
    protocol: 2,
    lazyConnect: true,
    // Fail fast while Redis is away instead of queueing requests behind reconnect attempts: an outage
    // should reach the client as an error, as it would in production.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  // ioredis reports connection errors as events; without a listener Node would crash on them.
  redis.on("error", () => {});
  await redis.connect();

  return {
    send: (command) => settle(callRaw(redis, command)),
    transaction: (commands) => runTransaction(redis.multi() as unknown as Pipeline, commands),
    close: async () => redis.disconnect(),
  };
}

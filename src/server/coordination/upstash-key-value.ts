import type { Redis } from "@upstash/redis";
import { countersFrom, escapeGlob } from "./redis-scripts";
import { SCRIPTS, scriptOperations, type ScriptName } from "./script-operations";
import type { KeyValue } from "./types";

/**
 * KeyValue over the Upstash REST protocol (Upstash itself, or any Redis behind a compatible endpoint).
 * Calls made in one tick travel in one pipeline request (the client auto-pipelines), so claiming a
 * hundred buckets costs one round trip.
 */
export function createUpstashKeyValue(redis: Redis): KeyValue {
  const scripts = Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, lua]) => [name, redis.createScript<unknown>(lua)]),
  ) as Record<ScriptName, ReturnType<Redis["createScript"]>>;
  return {
    ...scriptOperations((name, key, args) => scripts[name].exec([key], args)),
    async get(key) {
      const value = await redis.get<string>(key);
      return value ?? null;
    },
    async set(key, value, { ttlSeconds, onlyIfAbsent }) {
      const reply = onlyIfAbsent
        ? await redis.set(key, value, { ex: ttlSeconds, nx: true })
        : await redis.set(key, value, { ex: ttlSeconds });
      return reply === "OK";
    },
    async del(keys) {
      // One DEL per key: a multi-key DEL would fail with CROSSSLOT on a cluster when keys hash apart.
      if (keys.length > 0) await Promise.all(keys.map((key) => redis.del(key)));
    },
    async incrementHash(key, increments, ttlSeconds) {
      const transaction = redis.multi();
      for (const [field, by] of Object.entries(increments)) transaction.hincrby(key, field, by);
      transaction.expire(key, ttlSeconds);
      await transaction.exec();
    },
    async getHash(key) {
      // Without automatic deserialisation HGETALL answers Redis's flat [field, value, …] list.
      return countersFrom(((await redis.hgetall(key)) ?? []) as unknown as string[]);
    },
    ttl: (key) => redis.ttl(key),
    async ping() {
      await redis.ping();
    },
    async scan(prefix, cursor, count) {
      const [next, keys] = await redis.scan(cursor, { match: `${escapeGlob(prefix)}*`, count });
      return { cursor: String(next), keys };
    },
  };
}

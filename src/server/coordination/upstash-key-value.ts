import type { Redis } from "@upstash/redis";
import type { KeyValue } from "./types";

/** KeyValue over the Upstash REST protocol (Upstash itself, or any Redis behind a compatible endpoint). */
export function createUpstashKeyValue(redis: Redis): KeyValue {
  return {
    kind: "upstash",
    async get(key) {
      const value = await redis.get<string>(key);
      return value ?? null;
    },
    async set(key, value, { ttlSeconds, onlyIfAbsent }) {
      const reply = onlyIfAbsent ? await redis.set(key, value, { ex: ttlSeconds, nx: true }) : await redis.set(key, value, { ex: ttlSeconds });
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
      const hash = await redis.hgetall<Record<string, string>>(key);
      return Object.fromEntries(Object.entries(hash ?? {}).map(([field, value]) => [field, Number(value)]));
    },
    ttl: (key) => redis.ttl(key),
    async ping() {
      await redis.ping();
    },
  };
}

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
      // Without automatic deserialisation HGETALL answers Redis's flat [field, value, …] list.
      const flat = ((await redis.hgetall(key)) ?? []) as unknown as string[];
      const hash: Record<string, number> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]!] = Number(flat[i + 1]);
      return hash;
    },
    ttl: (key) => redis.ttl(key),
    async ping() {
      await redis.ping();
    },
  };
}

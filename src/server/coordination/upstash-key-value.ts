import type { Redis } from "@upstash/redis";
import {
  CLAIM_SCRIPT,
  countersFrom,
  DELETE_IF_EQUALS_SCRIPT,
  EXPIRE_IF_EQUALS_SCRIPT,
  INCREMENT_SCRIPT,
  escapeGlob,
  RELEASE_SCRIPT,
} from "./redis-scripts";
import type { KeyValue } from "./types";

/**
 * KeyValue over the Upstash REST protocol (Upstash itself, or any Redis behind a compatible endpoint).
 * Calls made in one tick travel in one pipeline request (the client auto-pipelines), so claiming a
 * hundred buckets costs one round trip.
 */
export function createUpstashKeyValue(redis: Redis): KeyValue {
  const scripts = {
    claim: redis.createScript<string[] | null>(CLAIM_SCRIPT),
    release: redis.createScript<number>(RELEASE_SCRIPT),
    deleteIfEquals: redis.createScript<number>(DELETE_IF_EQUALS_SCRIPT),
    expireIfEquals: redis.createScript<number>(EXPIRE_IF_EQUALS_SCRIPT),
    increment: redis.createScript<number>(INCREMENT_SCRIPT),
  };
  return {
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
    increment: async (key, ttlSeconds, by = 1) =>
      Number(await scripts.increment.exec([key], [String(ttlSeconds), String(by)])),
    async scan(prefix, cursor, count) {
      const [next, keys] = await redis.scan(cursor, { match: `${escapeGlob(prefix)}*`, count });
      return { cursor: String(next), keys };
    },
    deleteIfEquals: async (key, value) => Number(await scripts.deleteIfEquals.exec([key], [value])) === 1,
    expireIfEquals: async (key, value, ttlSeconds) =>
      Number(await scripts.expireIfEquals.exec([key], [value, String(ttlSeconds)])) === 1,
    async claimHashes(keys, claim) {
      const replies = await Promise.all(keys.map((key) => scripts.claim.exec([key], [claim])));
      return replies.map((reply) =>
        reply ? { claim: String(reply[0]), counters: countersFrom(reply.slice(1)) } : null,
      );
    },
    async releaseClaims(claims) {
      await Promise.all(claims.map(({ key, claim }) => scripts.release.exec([key], [claim])));
    },
  };
}

import type { Redis as IORedis } from "ioredis";
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

type ScriptCall = (key: string, ...args: string[]) => Promise<unknown>;

/**
 * A one-key script as a command of the client (ioredis' defineCommand: EVALSHA, loading the script
 * on NOSCRIPT).
 */
function script(redis: IORedis, name: string, lua: string): ScriptCall {
  redis.defineCommand(name, { numberOfKeys: 1, lua });
  const command = (redis as unknown as Record<string, ScriptCall>)[name]!;
  return (key, ...args) => command.call(redis, key, ...args);
}

/** KeyValue over TCP: the same commands and scripts as the Upstash one (upstash-key-value.ts). */
export function createTcpKeyValue(redis: IORedis): KeyValue {
  const scripts = {
    claim: script(redis, "optstuffClaim", CLAIM_SCRIPT),
    release: script(redis, "optstuffRelease", RELEASE_SCRIPT),
    deleteIfEquals: script(redis, "optstuffDeleteIfEquals", DELETE_IF_EQUALS_SCRIPT),
    expireIfEquals: script(redis, "optstuffExpireIfEquals", EXPIRE_IF_EQUALS_SCRIPT),
    increment: script(redis, "optstuffIncrement", INCREMENT_SCRIPT),
  };
  return {
    get: (key) => redis.get(key),
    async set(key, value, { ttlSeconds, onlyIfAbsent }) {
      const reply = onlyIfAbsent
        ? await redis.set(key, value, "EX", ttlSeconds, "NX")
        : await redis.set(key, value, "EX", ttlSeconds);
      return reply === "OK";
    },
    async del(keys) {
      if (keys.length > 0) await Promise.all(keys.map((key) => redis.del(key)));
    },
    async incrementHash(key, increments, ttlSeconds) {
      const transaction = redis.multi();
      for (const [field, by] of Object.entries(increments)) transaction.hincrby(key, field, by);
      transaction.expire(key, ttlSeconds);
      const replies = await transaction.exec();
      const failed = replies?.find(([error]) => error);
      if (failed) throw failed[0];
    },
    async getHash(key) {
      return Object.fromEntries(
        Object.entries(await redis.hgetall(key)).map(([field, value]) => [field, Number(value)]),
      );
    },
    ttl: (key) => redis.ttl(key),
    async ping() {
      await redis.ping();
    },
    increment: async (key, ttlSeconds, by = 1) => Number(await scripts.increment(key, String(ttlSeconds), String(by))),
    async scan(prefix, cursor, count) {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${escapeGlob(prefix)}*`, "COUNT", count);
      return { cursor: next, keys };
    },
    deleteIfEquals: async (key, value) => Number(await scripts.deleteIfEquals(key, value)) === 1,
    expireIfEquals: async (key, value, ttlSeconds) =>
      Number(await scripts.expireIfEquals(key, value, String(ttlSeconds))) === 1,
    async claimHashes(keys, claim) {
      const replies = (await Promise.all(keys.map((key) => scripts.claim(key, claim)))) as Array<unknown[] | null>;
      return replies.map((reply) =>
        reply ? { claim: String(reply[0]), counters: countersFrom(reply.slice(1)) } : null,
      );
    },
    async releaseClaims(claims) {
      await Promise.all(claims.map(({ key, claim }) => scripts.release(key, claim)));
    },
  };
}

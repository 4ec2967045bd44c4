import type { Redis as IORedis } from "ioredis";
import { escapeGlob } from "./redis-scripts";
import { SCRIPTS, scriptOperations, type ScriptName } from "./script-operations";
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
  const scripts = Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, lua]) => [name, script(redis, `optstuff_${name}`, lua)]),
  ) as Record<ScriptName, ScriptCall>;
  return {
    ...scriptOperations((name, key, args) => scripts[name](key, ...args)),
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
    async scan(prefix, cursor, count) {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${escapeGlob(prefix)}*`, "COUNT", count);
      return { cursor: next, keys };
    },
  };
}

import type { Redis as IORedis } from "ioredis";
import { removeUpstashFlags, sha1 } from "./script-flags";
import type { LimiterRedis } from "./upstash-rate-limiter";

/**
 * What @upstash/ratelimit asks of a client, over TCP. Its single-region sliding window makes two
 * calls only: EVALSHA with the SHA-1 of its script, and EVAL of the script when Redis answers
 * NOSCRIPT (its safeEval). Its scripts carry an Upstash-only flag that Redis and Valkey refuse, so
 * the script runs without it (script-flags.ts), under another SHA-1: EVALSHA of a script not yet run
 * here answers NOSCRIPT at once, and the library's EVAL teaches this client the new SHA-1. The
 * script's integers come back as numbers, as over REST. GET and SET complete the type it names
 * (dynamic limits, unused here).
 */
export function limiterRedisOver(redis: IORedis): LimiterRedis {
  const rewritten = new Map<string, string>();
  const flat = (keys: string[], args: unknown[]) => [keys.length, ...keys, ...args.map(String)] as const;
  const client = {
    async evalsha(sha: string, keys: string[], args: unknown[]) {
      const own = rewritten.get(sha);
      if (!own) throw new Error("NOSCRIPT the script has not run over this connection yet");
      return redis.evalsha(own, ...flat(keys, args));
    },
    async eval(script: string, keys: string[], args: unknown[]) {
      const runnable = removeUpstashFlags(script);
      const result = await redis.eval(runnable, ...flat(keys, args));
      rewritten.set(sha1(script), sha1(runnable));
      return result;
    },
    get: (key: string) => redis.get(key),
    set: (key: string, value: unknown) => redis.set(key, String(value)),
  };
  // The library's type is the Upstash client's; the calls above are the ones it makes.
  return client as unknown as LimiterRedis;
}

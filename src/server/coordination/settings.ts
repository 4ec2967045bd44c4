import { z } from "zod";
import { group, integer, text, type Setting, type ValuesOf } from "@/server/config/setting";
import type { UpstashSettings } from "./upstash-client";

const REDIS_SCHEMES = new Set(["redis:", "rediss:"]);

/** A redis:// or rediss:// URL, read by the WHATWG URL parser. */
const redisUrl: Setting<string | undefined> = {
  schema: z
    .string()
    .trim()
    .refine((text) => URL.canParse(text) && REDIS_SCHEMES.has(new URL(text).protocol), {
      message: "not a redis:// or rediss:// URL",
    })
    .optional(),
  doc: "Redis or Valkey over TCP (redis:// or rediss://, with the password in the URL), shared by every instance: for self-hosting, instead of the Upstash REST pair (beside Vercel's `KV_REST_API_*`, the REST pair is used).",
  defaultText: "in-process coordination (one instance only)",
  secret: true,
};

/** Redis over TCP or the Upstash REST protocol; without either, rate limits, caches and the usage buffer stay in process. */
export const coordinationSettings = group("Redis (rate limits, caches, usage buffer)", {
  REDIS_URL: redisUrl,
  UPSTASH_REDIS_REST_URL: text({
    defaultText: "in-process coordination (one instance only)",
    doc: "Redis over the Upstash REST protocol, shared by every instance; with its token, both or neither.",
  }),
  UPSTASH_REDIS_REST_TOKEN: text({ doc: "The REST endpoint's token.", secret: true }),
  KV_REST_API_URL: text({
    doc: "The same endpoint as Vercel's marketplace integration of Upstash names it: read when the `UPSTASH_` pair is not set.",
  }),
  KV_REST_API_TOKEN: text({ doc: "Its token.", secret: true }),
  OPTSTUFF_ADDRESS_WINDOWS_MAX: integer({
    default: 100_000,
    min: 100,
    max: 10_000_000,
    doc: "Without Redis, the client-address windows kept in memory (about 200 bytes each); past it expired, then admitting windows are dropped, a refusing one never (docs/security.md).",
  }),
});

export type CoordinationValues = ValuesOf<typeof coordinationSettings>;

/** Which shared Redis, and how it is reached. */
export type RedisSettings = ({ transport: "rest" } & UpstashSettings) | { transport: "tcp"; url: string };

/**
 * The shared Redis; null keeps coordination in process (one instance). REST first: Vercel's marketplace
 * integration of Upstash sets `KV_REST_API_*` and, for the same database, `REDIS_URL`, and a function
 * is better served by REST than by a connection of its own. env.ts refuses `REDIS_URL` beside the
 * `UPSTASH_` pair, which only an operator sets.
 */
export function redisOf(v: CoordinationValues): RedisSettings | null {
  if (v.UPSTASH_REDIS_REST_URL && v.UPSTASH_REDIS_REST_TOKEN)
    return { transport: "rest", url: v.UPSTASH_REDIS_REST_URL, token: v.UPSTASH_REDIS_REST_TOKEN };
  if (v.KV_REST_API_URL && v.KV_REST_API_TOKEN)
    return { transport: "rest", url: v.KV_REST_API_URL, token: v.KV_REST_API_TOKEN };
  return v.REDIS_URL ? { transport: "tcp", url: v.REDIS_URL } : null;
}

/** How an operator reads where Redis is (never the URL itself: it may carry a password). */
export const redisTransportText = (settings: RedisSettings) =>
  settings.transport === "tcp" ? "Redis over TCP (REDIS_URL)" : "the Upstash REST endpoint";

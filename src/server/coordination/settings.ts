import { group, integer, text, type ValuesOf } from "@/server/config/setting";
import type { UpstashSettings } from "./upstash-client";

/** Redis over the Upstash REST protocol; without it rate limits, caches and the usage buffer stay in process. */
export const coordinationSettings = group("Redis (rate limits, caches, usage buffer)", {
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

/** The shared Redis; null keeps coordination in process (one instance). */
export function redisOf(v: CoordinationValues): UpstashSettings | null {
  if (v.UPSTASH_REDIS_REST_URL && v.UPSTASH_REDIS_REST_TOKEN)
    return { url: v.UPSTASH_REDIS_REST_URL, token: v.UPSTASH_REDIS_REST_TOKEN };
  // Vercel's marketplace integration names the same pair this way.
  return v.KV_REST_API_URL && v.KV_REST_API_TOKEN ? { url: v.KV_REST_API_URL, token: v.KV_REST_API_TOKEN } : null;
}

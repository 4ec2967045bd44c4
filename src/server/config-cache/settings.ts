import { group, integer, type ValuesOf } from "@/server/config/setting";

export const configCacheSettings = group("Key and project configuration", {
  OPTSTUFF_CONFIG_CACHE_TTL_MS: integer({
    default: 1000,
    min: 0,
    doc: "How long a key's and a project's configuration is kept in process, in ms: a change made through another instance is seen here within it; 0 reads Redis (or the database) every time.",
  }),
});

export type ConfigCacheValues = ValuesOf<typeof configCacheSettings>;

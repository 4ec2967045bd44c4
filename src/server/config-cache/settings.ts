import { group, integer, type ValuesOf } from "@/server/config/setting";

export const configCacheSettings = group("Key and project configuration", {
  OPTSTUFF_CONFIG_CACHE_TTL_MS: integer({
    default: 1000,
    min: 0,
    doc: "How long a key's and a project's configuration is kept in process, in ms: a change made through another instance is seen here within it; 0 reads Redis (or the database) every time.",
  }),
  OPTSTUFF_CONFIG_CACHE_ENTRIES: integer({
    default: 10_000,
    min: 100,
    doc: "Keys' and projects' configurations kept in process; past it the oldest goes first. Raise it when more keys than this serve images at once, or their requests reach Redis (or the database) every time.",
  }),
});

export type ConfigCacheValues = ValuesOf<typeof configCacheSettings>;

import { flag, group, integer, text } from "@/server/config/setting";

/** How sources are fetched, and how long a downloaded one is kept for the next width of the same photo. */
export const sourceSettings = group("Sources", {
  OPTSTUFF_LOCAL_SOURCE_ROOT: text({
    defaultText: "off (the embedded default serves ./demo)",
    doc: "A directory served as `local/<path>` sources.",
  }),
  OPTSTUFF_ALLOW_LOOPBACK_SOURCES: flag({ doc: "Allow loopback origins: development and tests only." }),
  OPTSTUFF_MAX_SOURCE_BYTES: integer({ default: 25 * 1024 * 1024, min: 1, doc: "The largest source, in bytes." }),
  OPTSTUFF_FETCH_TIMEOUT_MS: integer({ default: 10_000, min: 1, doc: "A source's download budget, in ms." }),
  OPTSTUFF_MAX_REDIRECTS: integer({ default: 3, min: 0, doc: "Redirects followed per source." }),
  OPTSTUFF_SOURCE_CACHE_BYTES: integer({
    default: 64 * 1024 * 1024,
    min: 0,
    doc: "Downloaded sources kept, as files on /dev/shm (memory, off the server's heap), so one photo's srcset widths share a download; 0 downloads every time.",
  }),
});

import type { PlatformValues } from "@/server/config/platform-settings";
import { choice, group, integer, text, type ValuesOf } from "@/server/config/setting";

export const databaseSettings = group("Database", {
  DATABASE_URL: text({
    defaultText: "the embedded PGlite under `OPTSTUFF_DATA_DIR`",
    doc: "PostgreSQL ≥ 15.",
    secret: true,
  }),
  DATABASE_URL_UNPOOLED: text({
    doc: "The direct URL when `DATABASE_URL` goes through a pooler (Neon's integration sets both): migrations and the command line use it, since a migration's lock means nothing through a pooler in transaction mode.",
    secret: true,
  }),
  OPTSTUFF_DATABASE_POOLED: choice(["auto", "on", "off"], {
    default: "auto",
    doc: "Whether `DATABASE_URL` goes through a pooler in transaction mode (`auto`: on Vercel, or a host containing `-pooler`); pooled, no named prepared statements and no migrations go through it.",
  }),
  OPTSTUFF_MIGRATE_AT_START: choice(["auto", "on", "off"], {
    default: "auto",
    doc: "Apply pending migrations at start, over the direct URL (`auto`: except on Vercel, where `optstuff migrate` runs in the build); off, a server whose database is behind refuses to start, naming the deploy step.",
  }),
  OPTSTUFF_MIGRATE_PREVIEWS: choice(["off", "on"], {
    default: "off",
    doc: "On Vercel, whether a preview deployment's build migrates the database it is given (`optstuff migrate --vercel-build`): `on` only when every preview has a database of its own (Neon's integration with a branch per preview); off, a preview's build migrates nothing, since it cannot tell its database from production's.",
  }),
  /**
   * PGlite keeps PostgreSQL's buffer pool inside its WebAssembly memory, all of it resident, and that
   * memory never shrinks: the default 128 MB pool was most of the embedded server's idle footprint.
   * 16 MB holds a small deployment's working set (pages it misses come from the OS page cache); measured
   * in bare Node, reopening a data directory idled at 316 MB by default and 194 MB with 16 MB, with the
   * same durability (the pool is a cache; commits still reach the WAL). Passed as a start parameter, not
   * written into postgresql.conf, so a later start can choose again.
   */
  OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB: integer({
    default: 16,
    min: 1,
    max: 1024,
    doc: "The embedded database's buffer pool in MB, resident for the life of the process (PGlite's own default is 128).",
  }),
});

export type DatabaseValues = ValuesOf<typeof databaseSettings>;

/** DATABASE_URL goes through a pooler in transaction mode (see OPTSTUFF_DATABASE_POOLED). */
export function databasePooled(v: DatabaseValues & Pick<PlatformValues, "VERCEL">): boolean {
  if (v.OPTSTUFF_DATABASE_POOLED !== "auto") return v.OPTSTUFF_DATABASE_POOLED === "on";
  if (v.VERCEL !== undefined) return true;
  try {
    return new URL(v.DATABASE_URL ?? "").hostname.includes("-pooler");
  } catch {
    return false;
  }
}

export function migratesAtStart(v: DatabaseValues & Pick<PlatformValues, "VERCEL">): boolean {
  return v.OPTSTUFF_MIGRATE_AT_START === "auto" ? v.VERCEL === undefined : v.OPTSTUFF_MIGRATE_AT_START === "on";
}

import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrationsFolder } from "@/server/db/migrations";

/**
 * A copy of the committed migrations that stops before the one tagged `tag`: a database migrated from
 * it is one made by the release before that migration. The caller removes the directory.
 */
export function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "migrations-"));
  cpSync(migrationsFolder(), dir, { recursive: true });
  const journalPath = path.join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  if (at <= 0) throw new Error(`no migration tagged ${tag} after the first`);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return dir;
}

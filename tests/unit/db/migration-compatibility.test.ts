import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The expand/contract rule (docs/migrations.md): a migration runs before its release is promoted, and
 * an Instant Rollback runs the release before on the schema after, so no migration may drop or rename a
 * table or column that the release before it still uses. A release stops using the object; a later
 * release's migration drops it. Indexes may go whenever (0011 and 0019 drop some, and are not listed):
 * no statement names one. A unique index or constraint that an ON CONFLICT of the release before relies
 * on is the exception, which review holds, not this check. Each drop or rename of a table or column is
 * listed below with the release that stopped using the object.
 */
const CONTRACTIONS: ReadonlyArray<{ migration: string; change: string; stoppedUsing: string }> = [
  {
    migration: "0012_drop_invalidation_retry",
    change: 'drop table "invalidation_retry"',
    // Before the rule: the same release dropped it. Rolling back past 9855f3f fails where the release
    // before queued a failed invalidation or ran the daily maintenance.
    stoppedUsing: "9855f3f (2026-11-27), the release of the drop itself",
  },
  // The old table becomes the first partition; a partitioned table of the same name, columns and
  // unique keys takes its name in the same transaction. The release before reads and writes it as it
  // did, and its retention deletes by id (unique from the sequence) and by day, never by ctid (which
  // names no single row of a partitioned table: why request_variant_days waits for a later release).
  {
    migration: "0022_request_log_by_day",
    change: 'rename table "request_log"',
    stoppedUsing:
      "none: the name is taken over at once; 9c5e4ab's request-log, statistics, retention and maintenance tests pass on the schema after (PGlite and PostgreSQL 15)",
  },
  {
    migration: "0022_request_log_by_day",
    change: 'rename table "request_source_stats"',
    stoppedUsing:
      "none: the name is taken over at once; 9c5e4ab's request-log, statistics, retention and maintenance tests pass on the schema after (PGlite and PostgreSQL 15)",
  },
  // As 0022, a release later: the release before (74d7159) deletes these rows by primary key.
  {
    migration: "0023_variant_days_by_day",
    change: 'rename table "request_variant_days"',
    stoppedUsing:
      "none: the name is taken over at once; 74d7159's statistics, unique-variant, retention and maintenance tests pass on the schema after (PGlite and PostgreSQL 15)",
  },
];

/** The statements of a migration, comments removed and whitespace collapsed; quotes kept whole. */
function statements(sql: string): string[] {
  const found: string[] = [];
  let current = "";
  for (let i = 0; i < sql.length; i++) {
    const rest = sql.slice(i);
    const quoted = /^('(?:[^']|'')*'|"(?:[^"]|"")*"|(\$\w*\$)[\s\S]*?\2)/.exec(rest);
    if (quoted) {
      current += quoted[0];
      i += quoted[0].length - 1;
    } else if (rest.startsWith("--")) {
      i = sql.indexOf("\n", i) === -1 ? sql.length : sql.indexOf("\n", i);
      current += " ";
    } else if (rest.startsWith("/*")) {
      i = sql.indexOf("*/", i) === -1 ? sql.length : sql.indexOf("*/", i) + 1;
      current += " ";
    } else if (sql[i] === ";") {
      found.push(current);
      current = "";
    } else {
      current += sql[i];
    }
  }
  found.push(current);
  return found.map((s) => s.replace(/\s+/g, " ").trim()).filter((s) => s !== "");
}

/** Splits at the commas outside parentheses and quotes (the actions of one ALTER TABLE). */
function actions(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  const tokens = text.matchAll(/'(?:[^']|'')*'|"(?:[^"]|"")*"|[(),]/g);
  for (const token of tokens) {
    if (token[0] === "(") depth++;
    else if (token[0] === ")") depth--;
    else if (token[0] === "," && depth === 0) {
      parts.push(text.slice(start, token.index).trim());
      start = token.index + 1;
    }
  }
  return [...parts, text.slice(start).trim()];
}

const NAME = String.raw`("(?:[^"]|"")+"|[\w.]+)`;
const unquote = (name: string) => `"${name.replace(/^"|"$/g, "").replace(/""/g, '"')}"`;

/** The drops and renames of tables and columns in a migration's SQL, as `drop column "t"."c"` and the like. */
function contractions(sql: string): string[] {
  return statements(sql).flatMap((statement) => {
    const drop = new RegExp(
      String.raw`^DROP (?:MATERIALIZED VIEW|VIEW|TABLE) (?:IF EXISTS )?(.+?)(?: CASCADE| RESTRICT)?$`,
      "i",
    ).exec(statement);
    if (drop) return drop[1]!.split(",").map((name) => `drop table ${unquote(name.trim())}`);
    const alter = new RegExp(String.raw`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?${NAME} (.*)$`, "i").exec(statement);
    if (!alter) return [];
    const table = unquote(alter[1]!);
    return actions(alter[2]!).flatMap((action) => {
      if (/^(RENAME TO|SET SCHEMA) /i.test(action)) return [`rename table ${table}`];
      if (/^RENAME CONSTRAINT /i.test(action)) return [];
      const renamed = new RegExp(String.raw`^RENAME (?:COLUMN )?${NAME} TO `, "i").exec(action);
      if (renamed) return [`rename column ${table}.${unquote(renamed[1]!)}`];
      const dropped = new RegExp(String.raw`^DROP (?:COLUMN )?(?:IF EXISTS )?${NAME}`, "i").exec(action);
      if (dropped && !/^CONSTRAINT$/i.test(dropped[1]!)) return [`drop column ${table}.${unquote(dropped[1]!)}`];
      return [];
    });
  });
}

const DRIZZLE = "drizzle";
const migrations = readdirSync(DRIZZLE)
  .filter((file) => file.endsWith(".sql"))
  .sort();

describe("migrations keep the release before them working (expand/contract)", () => {
  it("finds each drop and rename of a table or column, and nothing else", () => {
    const sql = `
      DROP TABLE "a" CASCADE;--> statement-breakpoint
      DROP TABLE IF EXISTS b, "c d";
      ALTER TABLE "t" DROP COLUMN "x";
      ALTER TABLE ONLY t ADD COLUMN y int, DROP z, ALTER COLUMN w DROP DEFAULT;
      ALTER TABLE "t" RENAME COLUMN "old" TO "new";
      ALTER TABLE t RENAME u TO v;
      ALTER TABLE "t" RENAME TO "t2";
      -- DROP TABLE "in_a_comment";
      UPDATE t SET note = 'DROP TABLE x; ALTER TABLE t DROP COLUMN y';
      ALTER TABLE "t" DROP CONSTRAINT "t_pkey";
      ALTER TABLE "t" ADD CONSTRAINT "t_pk" PRIMARY KEY("a","b");
      ALTER TABLE "t" ALTER COLUMN "claim" DROP DEFAULT;
      DROP INDEX "t_idx";
    `;
    expect(contractions(sql)).toEqual([
      'drop table "a"',
      'drop table "b"',
      'drop table "c d"',
      'drop column "t"."x"',
      'drop column "t"."z"',
      'rename column "t"."old"',
      'rename column "t"."u"',
      'rename table "t"',
    ]);
  });

  it("drop or rename no table or column unless listed with the release that stopped using it", () => {
    const found = migrations.flatMap((file) =>
      contractions(readFileSync(path.join(DRIZZLE, file), "utf8")).map(
        (change) => `${path.basename(file, ".sql")}: ${change}`,
      ),
    );
    // A new entry here names the release that stopped using the object, and that release is live
    // before this migration ships (docs/migrations.md). An entry whose migration no longer drops it
    // goes too.
    expect(found).toEqual(CONTRACTIONS.map(({ migration, change }) => `${migration}: ${change}`));
    expect(CONTRACTIONS.every((entry) => entry.stoppedUsing.trim() !== "")).toBe(true);
  });

  it("read every migration the journal applies", () => {
    const journal = JSON.parse(readFileSync(path.join(DRIZZLE, "meta/_journal.json"), "utf8")) as {
      entries: Array<{ tag: string }>;
    };
    expect(migrations.map((file) => path.basename(file, ".sql"))).toEqual(journal.entries.map((e) => e.tag));
  });
});

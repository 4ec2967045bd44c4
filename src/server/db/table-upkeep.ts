import { sql } from "drizzle-orm";
import type { Database } from "./client";
import { rowsOf } from "./rows-of";

/**
 * PostgreSQL's autovacuum, for the embedded database, which runs none. Without it the planner never
 * has statistics: it takes a project's day of request log for nine rows and may sort the whole range
 * for a page it could walk off an index (200 ms at a day of the log's caps, the other tenants waiting
 * behind it in PGlite's one session); and the rows retention deletes are never reclaimed, so the file
 * grows for ever. The statistics' threshold is autovacuum's default.
 *
 * Both run in PGlite's one session, so both are kept where their cost is known: statistics every
 * minute from a sample of STATISTICS_TARGET × 300 rows (bounded whatever the table holds), vacuum once
 * a day after retention, where it reads the pages with deleted rows and every index of their table
 * (2.6 s at 2.1 M rows of request log after a day's retention; 60 ms when nothing died). A partitioned
 * table is tended through its partitions (db/day-partitions.ts), each a table of its own here: the
 * parent holds no rows, and vacuuming it would go through every partition again.
 */
export const UPKEEP_THRESHOLDS = { base: 50, analyzeShare: 0.1 } as const;

/** Of ANALYZE's default 100: 3,000 sampled rows, enough for the plans these tables get. */
export const STATISTICS_TARGET = 10;

export interface UpkeepReport {
  ok: boolean;
  /** Tables whose statistics were gathered again. */
  analyzed: string[];
  /** Tables vacuumed (and analysed with it). */
  vacuumed: string[];
  /** How long the statements took, in ms. */
  ms: number;
  /** Tables whose statement failed, with the message. */
  failed: Record<string, string>;
}

interface TableActivity {
  name: string;
  /** Rows inserted, updated or deleted since the last analysis. */
  changed: number;
  /** The planner's row count; -1 before the table was ever analysed or vacuumed. */
  rows: number;
}

/**
 * Gathers statistics for the application's tables that changed by more than a tenth since they were
 * last gathered, or were never gathered. The counters are kept in memory (a restart starts them at 0)
 * and are a second or so behind the last write: what changed just now is seen at the next call.
 */
export async function analyzeChanged(db: Database): Promise<UpkeepReport> {
  const { base, analyzeShare } = UPKEEP_THRESHOLDS;
  const due = (await activity(db)).filter((t) => t.rows < 0 || t.changed > base + analyzeShare * t.rows);
  return tend(db, due, "analyze");
}

/**
 * Vacuums (and analyses) every application table: what retention deleted becomes space the next rows
 * reuse. Every table, not those whose counters passed a threshold, because a restart resets the
 * counters (the rows deleted before it are never counted again); a table with nothing dead costs a
 * read of the pages not yet known to be all visible, and no index is read.
 */
export async function vacuumAll(db: Database): Promise<UpkeepReport> {
  return tend(db, await activity(db), "vacuum");
}

async function activity(db: Database): Promise<TableActivity[]> {
  return rowsOf<TableActivity>(
    await db.execute(sql`
      select s.relname as name, s.n_mod_since_analyze::float8 as changed, c.reltuples::float8 as rows
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = 'public' and c.relkind = 'r'
      order by s.relname`),
  ).map((t) => ({
    name: t.name,
    changed: Number(t.changed),
    rows: Number(t.rows),
  }));
}

/** One statement per table; one that fails (a table a migration just dropped) keeps none of the rest from theirs. */
async function tend(db: Database, tables: TableActivity[], kind: "analyze" | "vacuum"): Promise<UpkeepReport> {
  const report: UpkeepReport = { ok: true, analyzed: [], vacuumed: [], ms: 0, failed: {} };
  if (tables.length === 0) return report;
  const started = performance.now();
  // PGlite's connections share its one session: the setting holds for the statements below, whichever
  // connection carries them, and is put back after.
  await db.execute(sql`set default_statistics_target = ${sql.raw(String(STATISTICS_TARGET))}`);
  try {
    for (const table of tables) {
      const name = sql`${sql.identifier("public")}.${sql.identifier(table.name)}`;
      try {
        await db.execute(kind === "vacuum" ? sql`vacuum (analyze) ${name}` : sql`analyze ${name}`);
        (kind === "vacuum" ? report.vacuumed : report.analyzed).push(table.name);
      } catch (error) {
        report.ok = false;
        report.failed[table.name] = error instanceof Error ? error.message : String(error);
      }
    }
  } finally {
    await db.execute(sql`reset default_statistics_target`);
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}

import { sql } from "drizzle-orm";
import type { Database } from "./client";
import { rowsOf } from "./rows-of";

/**
 * PostgreSQL's autovacuum, for the embedded database, which runs none. Without it the planner never
 * has statistics: it takes a project's day of request log for nine rows and may sort the whole range
 * for a page it could walk off an index (200 ms at a day of the log's caps, the other tenants waiting
 * behind it in PGlite's one session); and the rows retention deletes are never reclaimed, so the file
 * grows for ever. Thresholds are autovacuum's defaults: a table is analysed once more than 50 rows and
 * a tenth of it changed since the last time, vacuumed once more than 50 rows and a fifth of it are dead.
 */
export const UPKEEP_THRESHOLDS = { base: 50, analyzeShare: 0.1, vacuumShare: 0.2 } as const;

export interface UpkeepReport {
  ok: true;
  /** Tables whose statistics were gathered again. */
  analyzed: string[];
  /** Tables vacuumed (and analysed with it). */
  vacuumed: string[];
}

interface TableActivity {
  name: string;
  /** Rows inserted, updated or deleted since the last analysis. */
  changed: number;
  dead: number;
  /** The planner's row count; -1 before the table was ever analysed or vacuumed. */
  rows: number;
}

/**
 * Analyses and vacuums the application's tables that passed their threshold, one statement each (each
 * is bounded by what the table holds: about 100 ms at a day of the request log's caps, measured).
 * The counters it reads are a second or so behind the last write: what changed just now is seen at
 * the next call.
 */
export async function tendTables(db: Database): Promise<UpkeepReport> {
  const tables = rowsOf<TableActivity>(
    await db.execute(sql`
      select s.relname as name, s.n_mod_since_analyze::float8 as changed, s.n_dead_tup::float8 as dead,
        c.reltuples::float8 as rows
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = 'public'
      order by s.relname`),
  );
  const report: UpkeepReport = { ok: true, analyzed: [], vacuumed: [] };
  for (const table of tables) {
    const size = Math.max(Number(table.rows), 0);
    const name = sql.identifier(table.name);
    if (Number(table.dead) > UPKEEP_THRESHOLDS.base + UPKEEP_THRESHOLDS.vacuumShare * size) {
      await db.execute(sql`vacuum (analyze) ${name}`);
      report.vacuumed.push(table.name);
    } else if (Number(table.changed) > UPKEEP_THRESHOLDS.base + UPKEEP_THRESHOLDS.analyzeShare * size) {
      await db.execute(sql`analyze ${name}`);
      report.analyzed.push(table.name);
    }
  }
  return report;
}

import { sql, type SQLWrapper } from "drizzle-orm";
import type { Database } from "@/server/db/client";

/**
 * Writes several data-modifying statements as one (writable CTEs): one round trip, atomic like the
 * transaction it replaces, and the rows it upserts locked for that one statement instead of from the
 * first upsert to a COMMIT several round trips later. That hold is what every instance's batch queued
 * behind on a busy project's statistics rows (bench:fleet).
 *
 * `durable: false` commits without waiting for the WAL to reach disk (synchronous_commit off, for this
 * statement only): the rows are released as soon as the statement ends instead of after a flush, and
 * a crash of the PostgreSQL server (not of this process) can lose the last fraction of a second of
 * what it wrote. For statistics and sampled log rows only: a batch that meters usage is durable.
 */
export async function asOneStatement(
  db: Pick<Database, "execute">,
  parts: ReadonlyArray<SQLWrapper | null>,
  { durable }: { durable: boolean },
): Promise<void> {
  const present = parts.filter((part): part is SQLWrapper => part !== null);
  if (present.length === 0) return;
  const ctes = sql.join(
    // getSQL(): a query builder embedded as itself would be put in parentheses of its own, and
    // PostgreSQL refuses a parenthesised INSERT.
    present.map((part, i) => sql`${sql.identifier(`part${i}`)} as (${part.getSQL()})`),
    sql`, `,
  );
  const end = durable ? sql`select 1` : sql`select set_config('synchronous_commit', 'off', true)`;
  await db.execute(sql`with ${ctes} ${end}`);
}

import { AppError } from "@/server/errors";

/**
 * How much of a table one dashboard read may walk. A filter no index serves (text contained in a
 * name, several fields at once) is checked here, row by row, over a bounded window: its cost follows
 * the budget, never the table, whatever a member types.
 */
export interface ScanLimits {
  /**
   * Rows per statement. Each statement is short, so other sessions' statements run between them: the
   * embedded database runs one statement at a time for every connection.
   */
  chunk: number;
  /** Rows one call reads at most; past it the call answers what it found and where to go on. */
  budget: number;
}

export const DASHBOARD_SCAN: ScanLimits = { chunk: 1000, budget: 5000 };

export interface Scanned<Row> {
  /** Matching rows, newest first, at most `want`. */
  rows: Row[];
  /**
   * Where the next call goes on (rows strictly older than this one): the last row returned when more
   * match, the last row read when the budget ran out first; null once the walk reached the end.
   */
  resume: Row | null;
  /** The budget ran out before `want` rows matched: older rows were not looked at. */
  partial: boolean;
}

/**
 * Walks rows newest first in chunks of `limits.chunk`, keeping those `matches` accepts, until `want`
 * of them (and one more, to know there are more) are found, the rows end, or `limits.budget` rows were
 * read. Stops between chunks once `signal` fires: nobody waits for the answer any more.
 */
export async function scanNewestFirst<Row>(options: {
  /** Up to `size` rows strictly older than `after` (from the newest when null), newest first. */
  read(after: Row | null, size: number): Promise<Row[]>;
  matches(row: Row): boolean;
  want: number;
  limits?: ScanLimits;
  signal?: AbortSignal;
}): Promise<Scanned<Row>> {
  const { chunk, budget } = options.limits ?? DASHBOARD_SCAN;
  const found: Row[] = [];
  let after: Row | null = null;
  let examined = 0;
  while (examined < budget) {
    await betweenStatements(options.signal);
    const size = Math.min(chunk, budget - examined);
    const rows = await options.read(after, size);
    for (const row of rows) {
      examined++;
      if (!options.matches(row)) continue;
      if (found.length === options.want) return { rows: found, resume: found.at(-1)!, partial: false };
      found.push(row);
    }
    if (rows.length < size) return { rows: found, resume: null, partial: false };
    after = rows.at(-1)!;
  }
  return { rows: found, resume: after, partial: true };
}

/**
 * Between two statements of a long read: other work of this process (a sign-in's hashing, an image
 * answer) takes its turn before the next statement is queued, and a read nobody waits for ends.
 */
export async function betweenStatements(signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resume) => setImmediate(resume));
  throwIfGone(signal);
}

/** A read whose client went away (the browser closed the page, a newer query replaced it) ends here. */
export function throwIfGone(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AppError("CLIENT_GONE");
}

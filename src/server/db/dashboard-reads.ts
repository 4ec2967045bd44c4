import { sql } from "drizzle-orm";
import { AppError } from "@/server/errors";
import type { Database, DatabaseHandle } from "./client";
import { rowsOf } from "./rows-of";

/**
 * Where the dashboard's reads of logs and statistics run. Each statement they make is bounded by
 * construction (newest-first-scan.ts, scope-projects.ts, stats-compaction.ts); on PostgreSQL each also
 * has a time limit the server enforces, and is cancelled when its client goes away. The embedded
 * database honours neither (one WebAssembly session, no statement_timeout): there the bounds are all.
 */
export interface DashboardReads {
  run<T>(read: (db: Database) => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** One bounded read, with its lane, time limit and client already chosen (api/bounded-read.ts). */
export type ReadOn = <T>(read: (db: Database) => Promise<T>) => Promise<T>;

/** Reads on `db` as it is: what the embedded database has, and what tests and the command line use. */
export const directReads = (db: Database): DashboardReads => ({ run: (read) => read(db) });

/** Longer than any bounded read takes; what a read that somehow is not bounded stops at. */
export const DASHBOARD_STATEMENT_TIMEOUT_MS = 5000;

/**
 * A read that stalls between its statements (its process busy, a bug) gives its connection back after
 * this long: PostgreSQL ends the session, and the read fails.
 */
const IDLE_IN_READ_MS = 2 * DASHBOARD_STATEMENT_TIMEOUT_MS;

/** PostgreSQL's query_canceled: statement_timeout, or pg_cancel_backend. */
const QUERY_CANCELED = "57014";

export function createDashboardReads(
  handle: Pick<DatabaseHandle, "db" | "kind">,
  timeoutMs = DASHBOARD_STATEMENT_TIMEOUT_MS,
  /** A cancel that could not be sent (the read still ends at its time limit). */
  onCancelFailed?: (error: unknown) => void,
): DashboardReads {
  if (handle.kind === "pglite") return directReads(handle.db);
  return {
    // A read-only transaction: `set_config(…, true)` lasts as long as it, through a pooler in
    // transaction mode too, and its backend stays the one a cancel names.
    run: (read, signal) =>
      handle.db.transaction(
        async (tx) => {
          const [session] = rowsOf<{ pid: number; began: string }>(
            await tx.execute(
              sql`select set_config('statement_timeout', ${String(timeoutMs)}, true),
                set_config('idle_in_transaction_session_timeout', ${String(IDLE_IN_READ_MS)}, true),
                pg_backend_pid() as pid, now()::text as began`,
            ),
          );
          // Only this transaction: once it ended, its backend may be running someone else's statement.
          const cancel = () =>
            void handle.db
              .execute(
                sql`select pg_cancel_backend(pid) from pg_stat_activity where pid = ${session!.pid} and xact_start = ${session!.began}::timestamptz`,
              )
              .catch((error: unknown) => onCancelFailed?.(error));
          signal?.addEventListener("abort", cancel, { once: true });
          try {
            return await read(tx as unknown as Database);
          } catch (error) {
            if (!hasCode(error, QUERY_CANCELED)) throw error;
            throw signal?.aborted
              ? new AppError("CLIENT_GONE", { cause: error })
              : new AppError("READ_TIMED_OUT", {
                  cause: error,
                  detail: `a dashboard statement ran past ${timeoutMs} ms`,
                });
          } finally {
            signal?.removeEventListener("abort", cancel);
          }
        },
        { accessMode: "read only" },
      ),
  };
}

/**
 * Whether a driver error with this SQLSTATE is anywhere in the chain of causes: tRPC and drizzle each
 * wrap it, and their wrappers carry codes of their own.
 */
function hasCode(error: unknown, sqlState: string): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause)
    if ((e as { code?: unknown }).code === sqlState) return true;
  return false;
}

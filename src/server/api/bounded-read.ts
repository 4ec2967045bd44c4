import type { Database } from "@/server/db/client";
import type { DashboardServices } from "./context";

/**
 * Runs a read of logs or statistics (a usage page, the request or audit log, an export's page): in the
 * account's lane (one at a time per account, a few for everyone: account-lanes.ts), on the database
 * its reads are bounded on (dashboard-reads.ts: a read-only transaction with a time limit on
 * PostgreSQL, cancelled with its client). Called after the team and project are resolved, so that a
 * read holds one connection, never one while it waits for another.
 */
export function readBounded<T>(
  services: Pick<DashboardServices, "readLanes" | "dashboardReads">,
  account: string,
  signal: AbortSignal | undefined,
  read: (db: Database) => Promise<T>,
): Promise<T> {
  return services.readLanes.run(account, () => services.dashboardReads.run(read, signal));
}

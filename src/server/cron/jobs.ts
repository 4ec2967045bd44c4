import { retryInvalidations, type ConfigInvalidator } from "@/server/config-cache";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import type { Logger } from "@/server/log";
import { sweepExpiredKeys } from "@/server/tenancy/sweep-expired-keys";
import { defaultFlushOptions, flushUsageBuffer, type FlushOptions, type FlushReport } from "@/server/usage/flush-usage-buffer";
import { pruneLedger, pruneRequestLog } from "@/server/usage/retention";
import { runRecorded } from "./cron-runs";
import { runMaintenance, type MaintenanceReport } from "./daily-maintenance";

export interface CronDeps {
  db: Database;
  kv: KeyValue;
  invalidate: ConfigInvalidator;
  logger: Logger;
  now: () => Date;
}

export interface CronJobs {
  flushUsage(options?: Partial<FlushOptions>): Promise<FlushReport & { ok: boolean }>;
  dailyMaintenance(): Promise<MaintenanceReport>;
}

/** The two scheduled jobs, each recorded in cron_run; routes and the in-process scheduler call these. */
export function createCronJobs(deps: CronDeps): CronJobs {
  const flush = async (options: Partial<FlushOptions> = {}) => ({
    ok: true,
    ...(await flushUsageBuffer({ kv: deps.kv, db: deps.db, now: deps.now }, { ...defaultFlushOptions, ...options })),
  });
  return {
    flushUsage: (options) => runRecorded(deps.db, "flush-usage-buffer", deps.now, () => flush(options)),
    dailyMaintenance: () =>
      runRecorded(deps.db, "daily-maintenance", deps.now, () =>
        runMaintenance(
          [
            { name: "flushUsage", run: async () => ({ ...(await runRecorded(deps.db, "flush-usage-buffer", deps.now, () => flush())) }) },
            { name: "requestLogRetention", run: async () => ({ deleted: await pruneRequestLog(deps.db, deps.now()) }) },
            { name: "expiredKeys", run: async () => ({ marked: await sweepExpiredKeys(deps, deps.now()) }) },
            { name: "invalidationRetries", run: async () => ({ ...(await retryInvalidations({ db: deps.db, kv: deps.kv.kind === "upstash" ? deps.kv : null })) }) },
            { name: "ledgerPrune", run: async () => ({ deleted: await pruneLedger(deps.db, deps.now()) }) },
          ],
          deps.logger,
        ),
      ),
  };
}

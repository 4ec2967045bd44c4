import { compactRequestStats, compactSourceStats } from "@/server/usage/stats-compaction";
import { checkAlerts, pruneAlertEvents, type AlertCheckReport, type AlertDeps } from "@/server/alerts/check-alerts";
import { pruneAuditLog } from "@/server/audit/retention";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { analyzeChanged, vacuumAll, type UpkeepReport } from "@/server/db/table-upkeep";
import { describeError, type Logger } from "@/server/log";
import { enforceSpendCaps, type CapCheckReport } from "@/server/spend-caps/enforce-caps";
import type { ResultStore } from "@/server/result-store/types";
import { sweepExpiredKeys } from "@/server/tenancy/sweep-expired-keys";
import { pruneWebhookDeliveries } from "@/server/webhooks/manage";
import {
  defaultFlushOptions,
  flushUsageBuffer,
  type FlushOptions,
  type FlushReport,
} from "@/server/usage/flush-usage-buffer";
import { prepareDays, pruneLedger, pruneRequestLog, pruneRequestStats } from "@/server/usage/retention";
import { runRecorded } from "./cron-runs";
import { runMaintenance, type MaintenanceReport } from "./daily-maintenance";
import type { MeteringFreshness } from "@/server/usage/metering-freshness";
import { meteringFreshness } from "./metering-freshness";
import type { SchedulerOptions } from "./schedule";

export interface CronDeps {
  db: Database;
  kv: KeyValue;
  /** Redis when every instance shares it: failed invalidations are retried there. Null in process. */
  redis: KeyValue | null;
  invalidate: ConfigInvalidator;
  logger: Logger;
  now: () => Date;
  /** The result store, brought under its bound daily (S3 has no eviction of its own); null without one. */
  store?: ResultStore | null;
  /** Days the audit log keeps (OPTSTUFF_AUDIT_RETENTION_DAYS). */
  auditRetentionDays: number;
  /** What the alert check reads and mails with (its db, now and logger are these); absent: no alerts here. */
  alerts?: Omit<AlertDeps, "db" | "now" | "logger">;
  /**
   * The database runs no autovacuum of its own (the embedded one): the scheduler's minute tick gathers
   * statistics, and the daily maintenance vacuums after retention (db/table-upkeep.ts). Elsewhere
   * neither runs.
   */
  tendsTables?: boolean;
  /** The in-process schedule when this process runs one (read when asked: it may start later); else null. */
  schedule?: () => SchedulerOptions | null;
}

/** `skipped`: another flush held the lock; this run did nothing and moves no freshness. */
export type FlushJobReport = FlushReport & {
  ok: boolean;
  skipped: boolean;
  /** The spend-cap check that follows a flush that ran (spend-caps/enforce-caps.ts). */
  caps?: CapCheckReport | { failed: true };
};

export interface CronJobs {
  flushUsage(options?: Partial<FlushOptions>): Promise<FlushJobReport>;
  dailyMaintenance(): Promise<MaintenanceReport>;
  /** Every team's alerts, mailed once per alert and window (alerts/check-alerts.ts). */
  checkAlerts(): Promise<AlertCheckReport>;
  /** What the dashboard says about how current metering is. */
  freshness(): Promise<MeteringFreshness>;
  /** Statistics where the database keeps none itself (CronDeps.tendsTables); not recorded in cron_run. */
  tendTables(): Promise<UpkeepReport>;
}

/**
 * The scheduled jobs, each recorded in cron_run but the minute's table upkeep (a row a minute for
 * work that is most often none); routes and the in-process scheduler call these.
 */
export function createCronJobs(deps: CronDeps): CronJobs {
  // After each flush, on what it flushed; a failure leaves the marks as they were until the next one.
  const checkCaps = async (): Promise<CapCheckReport | { failed: true }> => {
    try {
      return await enforceSpendCaps({ db: deps.db, invalidate: deps.invalidate, now: deps.now });
    } catch (error) {
      deps.logger.log("error", "spend-cap check failed", describeError(error));
      return { failed: true };
    }
  };
  const flush = async (options: Partial<FlushOptions> = {}): Promise<FlushJobReport> => {
    const report = await flushUsageBuffer(
      { kv: deps.kv, db: deps.db, now: deps.now },
      { ...defaultFlushOptions, ...options },
    );
    if (report.outcome === "locked") {
      deps.logger.log("info", "usage flush skipped: another flush holds the lock");
      return { ok: true, skipped: true, ...report };
    }
    return { ok: true, skipped: false, ...report, caps: await checkCaps() };
  };
  // A flush's success stands for its cutoff, not for when it ended: the dashboard's "metered up to".
  const recordedFlush = (options?: Partial<FlushOptions>) =>
    runRecorded(
      deps.db,
      "flush-usage-buffer",
      deps.now,
      () => flush(options),
      (report) => (report.meteredUpTo ? new Date(report.meteredUpTo) : null),
    );
  const store = deps.store;
  // A failed table is the caller's to report: the scheduler logs a report that is not ok.
  const logged = async (upkeep: (db: Database) => Promise<UpkeepReport>) => {
    const report = await upkeep(deps.db);
    if (report.analyzed.length + report.vacuumed.length > 0) deps.logger.log("info", "tables tended", { ...report });
    return report;
  };
  // A table that failed fails the part, named.
  const vacuumPart = async (): Promise<Record<string, unknown>> => {
    const report = await logged(vacuumAll);
    if (!report.ok) throw new Error(`vacuum failed: ${JSON.stringify(report.failed)}`);
    return { ...report };
  };
  const alertCheck = () => {
    if (!deps.alerts) throw new Error("alerts are not checked by this process");
    return checkAlerts({ ...deps.alerts, db: deps.db, now: deps.now, logger: deps.logger });
  };
  return {
    flushUsage: recordedFlush,
    dailyMaintenance: () =>
      runRecorded(deps.db, "daily-maintenance", deps.now, () =>
        runMaintenance(
          [
            { name: "flushUsage", run: async () => ({ ...(await recordedFlush()) }) },
            { name: "dayPartitions", run: async () => ({ created: await prepareDays(deps.db, deps.now()) }) },
            { name: "requestLogRetention", run: async () => ({ ...(await pruneRequestLog(deps.db, deps.now())) }) },
            // Days past the hourly week become one row each: what bounds a long range's read.
            {
              name: "requestStatsCompaction",
              run: async () => ({
                hours: await compactRequestStats(deps.db, deps.now()),
                sources: await compactSourceStats(deps.db, deps.now()),
              }),
            },
            {
              name: "requestStatsRetention",
              run: async () => ({ ...(await pruneRequestStats(deps.db, deps.now())) }),
            },
            { name: "expiredKeys", run: async () => ({ marked: await sweepExpiredKeys(deps, deps.now()) }) },
            {
              name: "auditLogRetention",
              run: async () => ({ deleted: await pruneAuditLog(deps.db, deps.now(), deps.auditRetentionDays) }),
            },
            { name: "ledgerPrune", run: async () => ({ deleted: await pruneLedger(deps.db, deps.now()) }) },
            // Where nothing runs the check every minute (Vercel's Hobby plan), alerts are checked daily.
            ...(deps.alerts ? [{ name: "alerts", run: async () => ({ ...(await alertCheck()) }) }] : []),
            { name: "alertRetention", run: async () => ({ deleted: await pruneAlertEvents(deps.db, deps.now()) }) },
            {
              name: "webhookDeliveryRetention",
              run: async () => ({ deleted: await pruneWebhookDeliveries(deps.db, deps.now()) }),
            },
            ...(store ? [{ name: "resultStorePrune", run: async () => ({ ...(await store.prune()) }) }] : []),
            // After every part that deletes: what they deleted becomes space for the next rows.
            ...(deps.tendsTables ? [{ name: "vacuum", run: vacuumPart }] : []),
          ],
          deps.logger,
        ),
      ),
    checkAlerts: () => runRecorded(deps.db, "check-alerts", deps.now, alertCheck),
    freshness: () => meteringFreshness(deps.db, deps.schedule?.() ?? null, defaultFlushOptions),
    tendTables: async () =>
      deps.tendsTables ? logged(analyzeChanged) : { ok: true, analyzed: [], vacuumed: [], ms: 0, failed: {} },
  };
}

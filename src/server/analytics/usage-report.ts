import type { DateRangeInput } from "@/lib/schemas/date-range";
import type { MeteringFreshness } from "@/server/cron/metering-freshness";
import type { Database } from "@/server/db/client";
import { storeShare } from "@/server/result-store/store-share";
import type { ResultStore } from "@/server/result-store/types";
import { resolveDateRange } from "./date-range";
import { qualityModeStats } from "./quality-mode-stats";
import { requestLogPage, requestLogStats, type RequestLogPageInput } from "./request-log-stats";
import { requestOutcomes } from "./request-outcomes";
import { savingsReport, workOf, type SavingsReport } from "./savings";
import { projectUsage, teamUsage } from "./usage-totals";

/** What the usage pages read: the database, the clock a range is resolved against, metering's lag. */
export interface UsageReportDeps {
  db: Database;
  now: () => Date;
  freshness(): Promise<MeteringFreshness>;
  store: ResultStore | null;
}

/**
 * A project's usage page: metered totals, every request by outcome, the request log's statistics, what
 * each quality mode delivered, what the service saved, how current metering is, its stored share.
 */
export async function projectUsageReport(deps: UsageReportDeps, projectId: string, rangeInput: DateRangeInput) {
  const now = deps.now();
  const range = resolveDateRange(rangeInput, now);
  const [usage, log, outcomes, qualityModes, savings, metering] = await Promise.all([
    projectUsage(deps.db, projectId, range),
    requestLogStats(deps.db, projectId, range),
    requestOutcomes(deps.db, { projectId }, range, now),
    qualityModeStats(deps.db, projectId, range),
    savingsReport(deps.db, { projectId }, range),
    deps.freshness(),
  ]);
  const store = storeShare(deps.store, projectId);
  return { range, ...usage, log, outcomes, qualityModes, savings: withWork(savings, outcomes), metering, store };
}

/** One page of a project's request log within the range. */
export function projectRequestLog(
  deps: Pick<UsageReportDeps, "db" | "now">,
  projectId: string,
  input: RequestLogPageInput & { range: DateRangeInput },
) {
  return requestLogPage(deps.db, projectId, resolveDateRange(input.range, deps.now()), input);
}

/** A team's usage page: its projects' totals, every request by outcome, how current metering is. */
export async function teamUsageReport(deps: UsageReportDeps, teamId: string, rangeInput: DateRangeInput) {
  const now = deps.now();
  const range = resolveDateRange(rangeInput, now);
  const [usage, outcomes, savings, metering] = await Promise.all([
    teamUsage(deps.db, teamId, range),
    requestOutcomes(deps.db, { teamId }, range, now),
    savingsReport(deps.db, { teamId }, range),
    deps.freshness(),
  ]);
  return { range, ...usage, outcomes, savings: withWork(savings, outcomes), metering };
}

/** The savings with the work the outcomes already counted. */
const withWork = (
  savings: Omit<SavingsReport, "work">,
  outcomes: { totals: Parameters<typeof workOf>[0] },
): SavingsReport => ({ ...savings, work: workOf(outcomes.totals) });

import type { DateRangeInput } from "@/lib/schemas/date-range";
import type { MeteringFreshness } from "@/server/usage/metering-freshness";
import type { Database } from "@/server/db/client";
import { betweenStatements } from "@/server/db/newest-first-scan";
import { storeShare } from "@/server/result-store/store-share";
import type { ResultStore } from "@/server/result-store/types";
import { usageRange } from "./first-request";
import { qualityModeStats } from "./quality-mode-stats";
import { requestLogPage, type RequestLogPageInput } from "./request-log-page";
import { requestLogStats } from "./request-log-stats";
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
export async function projectUsageReport(
  deps: UsageReportDeps,
  projectId: string,
  rangeInput: DateRangeInput,
  signal?: AbortSignal,
) {
  const now = deps.now();
  const range = await usageRange(deps.db, { projectId }, rangeInput, now);
  // One part after another: each is a few bounded statements, others' work runs between them, and
  // none runs once the client has gone.
  const usage = await projectUsage(deps.db, projectId, range);
  await betweenStatements(signal);
  const log = await requestLogStats(deps.db, projectId, range);
  await betweenStatements(signal);
  const outcomes = await requestOutcomes(deps.db, { projectId }, range, now, signal);
  await betweenStatements(signal);
  const qualityModes = await qualityModeStats(deps.db, projectId, range);
  await betweenStatements(signal);
  const savings = await savingsReport(deps.db, { projectId }, range, signal);
  const metering = await deps.freshness();
  const store = storeShare(deps.store, projectId);
  return { range, ...usage, log, outcomes, qualityModes, savings: withWork(savings, outcomes), metering, store };
}

/** One page of a project's request log within the range. */
export async function projectRequestLog(
  deps: Pick<UsageReportDeps, "db" | "now">,
  projectId: string,
  input: RequestLogPageInput & { range: DateRangeInput },
  signal?: AbortSignal,
) {
  const range = await usageRange(deps.db, { projectId }, input.range, deps.now());
  return requestLogPage(deps.db, projectId, range, input, signal);
}

/** A team's usage page: its projects' totals, every request by outcome, how current metering is. */
export async function teamUsageReport(
  deps: UsageReportDeps,
  teamId: string,
  rangeInput: DateRangeInput,
  signal?: AbortSignal,
) {
  const now = deps.now();
  const range = await usageRange(deps.db, { teamId }, rangeInput, now);
  // A team's parts read a few projects per statement (scope-projects.ts), one statement at a time.
  const usage = await teamUsage(deps.db, teamId, range, signal);
  await betweenStatements(signal);
  const outcomes = await requestOutcomes(deps.db, { teamId }, range, now, signal);
  await betweenStatements(signal);
  const savings = await savingsReport(deps.db, { teamId }, range, signal);
  const metering = await deps.freshness();
  return { range, ...usage, outcomes, savings: withWork(savings, outcomes), metering };
}

/** The savings with the work the outcomes already counted. */
const withWork = (
  savings: Omit<SavingsReport, "work">,
  outcomes: { totals: Parameters<typeof workOf>[0] },
): SavingsReport => ({ ...savings, work: workOf(outcomes.totals) });

import { z } from "zod";
import { auditFilterSchema, MAX_AUDIT_RANGE_DAYS } from "@/lib/schemas/audit";
import { customRangeSchema } from "@/lib/schemas/date-range";
import { DAY_MS, dayOf, resolveDateRange } from "@/server/analytics/date-range";
import { usageCsvPages, USAGE_CSV_HEADER } from "@/server/analytics/usage-export";
import { auditCsvPages, AUDIT_CSV_HEADER } from "@/server/audit/audit-export";
import { resolveAuditScope } from "@/server/tenancy/audit-scope";
import { AppError } from "@/server/errors";
import { REQUEST_STATS_RETENTION_DAYS } from "@/server/usage/retention";
import { projectInTeam, teamScope } from "@/server/tenancy/scope";
import type { Exporter } from "./export-route";

const slug = z.string().min(1).max(100);

function parsed<T>(schema: z.ZodType<T>, query: URLSearchParams | object): T {
  const result = schema.safeParse(query instanceof URLSearchParams ? Object.fromEntries(query) : query);
  if (!result.success)
    throw new AppError("INVALID_INPUT", { message: result.error.issues[0]?.message ?? "Invalid export" });
  return result.data;
}

/** The audit log with the log page's filters; without days, the last year (one file never holds more). */
export const auditExport: Exporter = async (deps, viewer, query) => {
  const { team, ...filter } = parsed(auditFilterSchema.extend({ team: slug.optional() }), query);
  const scope = await resolveAuditScope(deps, viewer, team);
  const now = deps.now().getTime();
  const days =
    filter.from || filter.to ? {} : { from: dayOf(now - (MAX_AUDIT_RANGE_DAYS - 1) * DAY_MS), to: dayOf(now) };
  return {
    name: `audit-${team ?? "instance"}-${dayOf(now)}.csv`,
    header: AUDIT_CSV_HEADER,
    // The filter is checked here, before a response begins: a bad range is a 400, not a broken file.
    pages: auditCsvPages(deps, scope, { ...filter, ...days }, deps.signal),
  };
};

const usageQuery = z
  .object({
    team: slug,
    project: slug.optional(),
    preset: z.enum(["7d", "30d", "90d"]).optional(),
    from: z.string().optional(),
    to: z.string().optional(),
  })
  .refine((q) => (q.from === undefined) === (q.to === undefined), { error: "Give both from and to, or neither" })
  .refine((q) => !(q.preset && q.from), { error: "Give either a preset or from and to, not both" });

/** A year: the ledger's days (the request statistics keep fewer: their cells are empty before). */
const MAX_USAGE_EXPORT_DAYS = 366;

/** A team's (or one project's) usage by day and project over the usage pages' range, at most a year. */
export const usageExport: Exporter = async (deps, viewer, query) => {
  const input = parsed(usageQuery, query);
  const membership = await teamScope(deps, viewer, input.team, "usage.export");
  const project = input.project ? await projectInTeam(deps, membership.team.id, input.project) : null;
  const asked =
    input.from !== undefined
      ? parsed(customRangeSchema, { from: input.from, to: input.to })
      : { preset: input.preset ?? "30d" };
  const now = deps.now();
  const range = resolveDateRange(asked, now, MAX_USAGE_EXPORT_DAYS);
  const statsSince = dayOf(now.getTime() - (REQUEST_STATS_RETENTION_DAYS - 1) * DAY_MS);
  const scope = { teamId: membership.team.id, projectId: project?.id };
  return {
    name: `usage-${membership.team.slug}${project ? `-${project.slug}` : ""}-${range.from}-${range.to}.csv`,
    header: USAGE_CSV_HEADER,
    pages: usageCsvPages(deps.read, scope, range, statsSince, deps.signal),
  };
};

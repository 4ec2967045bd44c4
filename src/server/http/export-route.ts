import { randomUUID } from "node:crypto";
import { z } from "zod";
import { auditFilterSchema } from "@/lib/schemas/audit";
import { auditCsvPages, AUDIT_CSV_HEADER } from "@/server/audit/audit-export";
import { MAX_AUDIT_RANGE_DAYS } from "@/server/audit/audit-log";
import { resolveAuditScope } from "@/server/audit/audit-scope";
import { sessionUser } from "@/server/auth/session-user";
import { AppError, toAppError } from "@/server/errors";
import { csvStream } from "@/server/export/csv-stream";
import { bootLogger, describeError } from "@/server/log";
import { limitsFor } from "@/server/ratelimit/dashboard-limits";
import type { Services } from "@/server/services";
import { errorResponse } from "@/server/wire/error-response";

const exportQuery = auditFilterSchema.extend({
  /** A team's log by its slug; without it, the instance's (its owner only). */
  team: z.string().min(1).max(100).optional(),
});

/**
 * GET /api/export/audit: the audit log as CSV, for the session's account, with the log page's filters
 * as query parameters. Whose log is checked as the page's procedures check it: a team's admins (a
 * member is refused, a stranger told there is no such team), the instance's owner.
 */
export function createAuditExportHandler(getServices: () => Promise<Services>) {
  return async (request: Request): Promise<Response> => {
    const requestId = randomUUID();
    let services: Services | undefined;
    try {
      services = await getServices();
      const user = await sessionUser(await services.auth(), request.headers);
      if (!user) throw new AppError("UNAUTHENTICATED");
      const parsed = exportQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
      if (!parsed.success)
        throw new AppError("INVALID_INPUT", { message: parsed.error.issues[0]?.message ?? "Invalid export" });
      const { team, ...filter } = parsed.data;
      const deps = { db: services.database.db, now: services.tenancy.now };
      const scope = await resolveAuditScope(deps, user.id, team);
      await services.admission.admit(limitsFor({ type: "query", counts: "export" }), user.id);
      // Checked before the first byte: a bad range is a 400, not a broken download. Without days,
      // the last year: one file never holds more.
      const pages = auditCsvPages(
        deps,
        scope,
        filter.from || filter.to ? filter : { ...filter, ...lastYear(deps.now()) },
      );
      const name = `audit-${team ?? "instance"}-${deps.now().toISOString().slice(0, 10)}.csv`;
      const failed = (error: unknown) =>
        services!.logger.log("error", "export failed after it began", { requestId, ...describeError(error) });
      return new Response(csvStream(AUDIT_CSV_HEADER, pages, failed), {
        headers: {
          "Content-Type": "text/csv; charset=utf-8",
          "Content-Disposition": `attachment; filename="${name}"`,
          "Cache-Control": "no-store",
          "X-Content-Type-Options": "nosniff",
          "X-Request-Id": requestId,
        },
      });
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.status >= 500)
        (services?.logger ?? bootLogger).log("error", "export failed", { requestId, ...describeError(thrown) });
      return errorResponse(error, requestId, request.method);
    }
  };
}

const DAY_MS = 24 * 3600 * 1000;

function lastYear(now: Date): { from: string; to: string } {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(now.getTime() - (MAX_AUDIT_RANGE_DAYS - 1) * DAY_MS), to: day(now.getTime()) };
}

import { randomUUID } from "node:crypto";
import { sessionUser } from "@/server/auth/session-user";
import { AppError, toAppError } from "@/server/errors";
import { csvStream, type CsvCell } from "@/server/export/csv-stream";
import { readBounded } from "@/server/api/bounded-read";
import type { Database } from "@/server/db/client";
import type { ReadOn } from "@/server/db/dashboard-reads";
import { bootLogger, describeError } from "@/server/log";
import { limitsFor } from "@/server/ratelimit/dashboard-limits";
import type { Services } from "@/server/services";
import type { Viewer } from "@/server/tenancy/scope";
import { errorResponse } from "@/server/wire/error-response";

/** A file an export makes: its name, its header, and its rows a page at a time. */
export interface CsvExport {
  name: string;
  header: readonly string[];
  pages: AsyncIterable<CsvCell[][]>;
}

/**
 * What one export reads: the account is signed in; the export checks whose data it may read and its
 * parameters, and throws (an AppError) before any row is read when it may not.
 */
export type Exporter = (
  /** `signal` fires when the client goes: the export stops reading between its statements. */
  deps: {
    db: Services["database"]["db"];
    now: () => Date;
    secondFactorRequired: boolean;
    signal: AbortSignal;
    /** Each page's statements: in the account's lane, bounded in time on PostgreSQL (bounded-read.ts). */
    read: ReadOn;
  },
  viewer: Viewer,
  query: URLSearchParams,
) => Promise<CsvExport>;

/**
 * GET /api/export/*: a CSV for the session's account, streamed a page at a time. Every export counts
 * against the account's exports an hour (dashboard-limits.ts); refusals are the JSON errors of every
 * route, and a failure after the first byte cuts the download as failed.
 */
export function createExportHandler(getServices: () => Promise<Services>, exporter: Exporter) {
  return async (request: Request): Promise<Response> => {
    const requestId = randomUUID();
    let services: Services | undefined;
    try {
      const loaded = (services = await getServices());
      const user = await sessionUser(await loaded.dashboard.auth(), request.headers);
      if (!user) throw new AppError("UNAUTHENTICATED");
      // Counted before anything is looked up, as the procedures are: refused probes count too.
      await loaded.dashboard.admission.admit(limitsFor({ type: "query", counts: "export" }), user.id);
      const deps = {
        db: loaded.database.db,
        now: loaded.dashboard.tenancy.now,
        secondFactorRequired: loaded.dashboard.tenancy.secondFactorRequired,
        signal: request.signal,
        read: <T>(read: (db: Database) => Promise<T>) => readBounded(loaded.dashboard, user.id, request.signal, read),
      };
      const made = await exporter(deps, user, new URL(request.url).searchParams);
      const failed = (error: unknown) =>
        loaded.logger.log("error", "export failed after it began", { requestId, ...describeError(error) });
      return new Response(csvStream(made.header, made.pages, failed), {
        headers: {
          "Content-Type": "text/csv; charset=utf-8",
          "Content-Disposition": `attachment; filename="${made.name}"`,
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

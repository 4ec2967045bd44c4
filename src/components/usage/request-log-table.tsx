"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { EmptyState, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Pager, useCursorPages } from "@/components/ui/pager";
import { SearchedBackTo } from "@/components/ui/searched-back-to";
import { SOURCE_CONTAINS_MAX } from "@/lib/schemas/request-log";
import { When } from "@/components/ui/when";
import { formatBytes, formatMs } from "@/lib/format";
import { normaliseRequestId, REQUEST_ID_HINT } from "@/lib/request-id";
import { useTRPC } from "@/lib/trpc/client";
import { useDebounced } from "@/lib/use-debounced";
import type { RequestLogStatus } from "@/server/errors";
import { DataTable } from "./data-table";
import type { RangeInput } from "./range-picker";
import { Select } from "@/components/ui/select";
import { REQUEST_LOG_PAGE } from "./first-view";

/**
 * The request log, newest first, filtered by status and source; older pages by cursor, newer by going back. A
 * request id (from an error body or X-Request-Id) finds that one request whatever the filters.
 */
export function RequestLogTable({
  teamSlug,
  projectSlug,
  range,
  statuses,
}: {
  teamSlug: string;
  projectSlug: string;
  range: RangeInput;
  statuses: readonly RequestLogStatus[];
}) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<RequestLogStatus | "">("");
  const [idQuery, setIdQuery] = useState("");
  const [sourceQuery, setSourceQuery] = useState("");
  const source = useDebounced(sourceQuery.trim()) || undefined;
  // The pages walked belong to the filters they were walked under (the source's as sent, after its
  // pause): other filters start again at the newest, whatever was clicked in between.
  const filters = JSON.stringify([status, source, range]);
  const pages = useCursorPages(filters);
  const requestId = normaliseRequestId(idQuery);
  const before = requestId ? undefined : pages.before;
  const page = useQuery({
    ...trpc.usage.requestLog.queryOptions({
      teamSlug,
      projectSlug,
      range,
      status: status || undefined,
      source,
      requestId,
      before,
      limit: REQUEST_LOG_PAGE,
    }),
    placeholderData: keepPreviousData,
  });
  const rows = page.data?.rows ?? [];
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        <label className="flex items-center gap-2 text-sm">
          Status
          <Select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as RequestLogStatus | "");
            }}
            size="sm"
          >
            <option value="">All</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </label>
        <label className="flex w-full items-center gap-2 text-sm sm:w-auto">
          <span className="shrink-0">Source</span>
          <input
            type="search"
            value={sourceQuery}
            onChange={(e) => {
              setSourceQuery(e.target.value);
            }}
            maxLength={2048}
            placeholder="contains, e.g. cat.jpg, or a whole URL"
            title={`Up to ${SOURCE_CONTAINS_MAX} characters: sources containing the text. Longer: exactly that source.`}
            className="min-w-0 flex-1 rounded-md border border-line-strong bg-surface px-2 py-1.5 font-mono text-xs sm:w-48 sm:flex-none"
          />
        </label>
        <label className="flex w-full items-center gap-2 text-sm sm:w-auto">
          <span className="shrink-0">Request id</span>
          <input
            value={idQuery}
            onChange={(e) => setIdQuery(e.target.value)}
            placeholder="from X-Request-Id or an error's requestId"
            aria-invalid={idQuery.trim() !== "" && !requestId}
            className="min-w-0 flex-1 rounded-md sm:w-80 sm:flex-none border border-line-strong bg-surface px-2 py-1.5 font-mono text-xs"
          />
        </label>
      </div>
      {idQuery.trim() !== "" && !requestId ? <p className="text-sm text-danger">{REQUEST_ID_HINT}.</p> : null}
      {page.isPending ? <Loading /> : null}
      <ErrorMessage error={page.error} />
      {page.data && rows.length === 0 && requestId ? (
        <EmptyState title="No request with this id in this project">
          Requests refused before their key was known (malformed URL, unknown key) are not logged, and successes may be
          sampled.
        </EmptyState>
      ) : null}
      {page.data && rows.length === 0 && !requestId ? (
        <EmptyState
          title={
            page.data.searchedBackTo
              ? "No request matches these filters yet"
              : page.data.sourceMatch === "exact"
                ? "No request for exactly this source"
                : status || source
                  ? "No request matches these filters"
                  : "No requests logged in this range"
          }
        >
          {status || source ? (
            <Button
              variant="secondary"
              size="sm"
              onClick={() => {
                setStatus("");
                setSourceQuery("");
              }}
            >
              Clear the filters
            </Button>
          ) : (
            "Requests appear here a moment after they are served. The Developer tab signs a test URL."
          )}
        </EmptyState>
      ) : null}
      {rows.length > 0 ? (
        <DataTable
          label="Request log"
          testId="request-log"
          oneLine
          rows={rows}
          rowKey={(r) => String(r.id)}
          columns={[
            { header: "Time", cell: (r) => <When at={r.createdAt} seconds /> },
            { header: "Status", cell: (r) => `${r.status} (${r.httpStatus})` },
            {
              header: "Source",
              cell: (r) => (
                <span className="block max-w-64 truncate font-mono text-xs" title={r.sourceUrl ?? ""}>
                  {r.sourceUrl ?? "–"}
                </span>
              ),
            },
            {
              header: "Operations",
              cell: (r) => (
                <span className="block max-w-48 truncate font-mono text-xs" title={r.operations ?? ""}>
                  {r.operations ?? "–"}
                </span>
              ),
            },
            { header: "Key", cell: (r) => r.keyName ?? "–" },
            {
              header: "Output",
              numeric: true,
              cell: (r) => (r.outputBytes === null ? "–" : `${formatBytes(r.outputBytes)} ${r.outputFormat ?? ""}`),
            },
            // q_auto's choice: the encoder quality, and the perceptual score it reached (or the knee's,
            // short of a level out of reach).
            {
              header: "Quality",
              numeric: true,
              cell: (r) =>
                r.quality === null
                  ? "–"
                  : `q${r.quality} · ${(r.score ?? 0).toFixed(1)}${r.unreached ? " · level out of reach" : ""}`,
            },
            { header: "Time", numeric: true, cell: (r) => formatMs(r.processingMs) },
            { header: "Cache", cell: (r) => r.cache ?? "–" },
            // Whole: it is what an integrator pastes into a support message or the filter above.
            {
              header: "Request id",
              cell: (r) => (
                <span className="font-mono text-xs" data-testid="request-id">
                  {r.requestId}
                </span>
              ),
            },
          ]}
        />
      ) : null}
      <SearchedBackTo at={page.isPlaceholderData ? null : page.data?.searchedBackTo} />
      <Pager pages={pages} next={page.isPlaceholderData ? null : page.data?.nextBefore} />
    </div>
  );
}

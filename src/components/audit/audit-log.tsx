"use client";

import { keepPreviousData, skipToken, useQuery } from "@tanstack/react-query";
import { Download } from "lucide-react";
import { useState } from "react";
import { Button, buttonClasses } from "@/components/ui/button";
import { EmptyState, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Pager, useCursorPages } from "@/components/ui/pager";
import { SearchedBackTo } from "@/components/ui/searched-back-to";
import { When } from "@/components/ui/when";
import { DataTable } from "@/components/usage/data-table";
import { AUDIT_PAGE, auditRangeProblem } from "@/lib/schemas/audit";
import { useTRPC } from "@/lib/trpc/client";
import { useDebounced } from "@/lib/use-debounced";
import { AuditChanges } from "./audit-changes";
import { AuditFilters, NO_FILTERS, targetName, type AuditFilterState } from "./audit-filters";

/** The newest page asks again this often, so a change made elsewhere shows up without a reload. */
const REFRESH_MS = 3000;

/** Who changed what, newest first: a team's log for its admins, or the instance's for its owner. */
export function AuditLog({ teamSlug }: { teamSlug: string | null }) {
  const trpc = useTRPC();
  const [typed, setTyped] = useState<AuditFilterState>(NO_FILTERS);
  const target = useDebounced(typed.target.trim());
  const filter = {
    actor: typed.actor || undefined,
    action: typed.action || undefined,
    targetType: typed.targetType || undefined,
    target: target || undefined,
    // One day given is that day; the server checks the order and the length.
    from: typed.from || typed.to || undefined,
    to: typed.to || typed.from || undefined,
  };
  const rangeProblem = auditRangeProblem(filter.from, filter.to);
  const key = JSON.stringify(filter);
  const pages = useCursorPages(key);
  const before = pages.before;
  const input = { ...filter, before, limit: AUDIT_PAGE };
  const options = {
    placeholderData: keepPreviousData,
    refetchInterval: before === undefined ? REFRESH_MS : (false as const),
  };
  // One of each pair runs: the team's log, or the instance's.
  const teamPage = useQuery({
    ...trpc.audit.list.queryOptions(teamSlug ? { teamSlug, ...input } : skipToken),
    ...options,
  });
  const instancePage = useQuery({
    ...trpc.audit.instanceList.queryOptions(teamSlug ? skipToken : input),
    ...options,
  });
  const page = teamSlug ? teamPage : instancePage;
  const teamActors = useQuery(trpc.audit.actors.queryOptions(teamSlug ? { teamSlug } : skipToken));
  const instanceActors = useQuery({ ...trpc.audit.instanceActors.queryOptions(), enabled: teamSlug === null });
  const actors = teamSlug ? teamActors : instanceActors;
  const entries = page.data?.entries ?? [];
  const filtered = Object.values(filter).some(Boolean);
  const exportHref = `/api/export/audit?${new URLSearchParams(
    Object.entries({ team: teamSlug ?? undefined, ...filter }).filter((e): e is [string, string] => !!e[1]),
  )}`;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <AuditFilters value={typed} onChange={setTyped} actors={actors.data ?? []} instance={teamSlug === null} />
        {rangeProblem ? (
          <p className="text-sm text-danger" role="alert">
            {rangeProblem}
          </p>
        ) : (
          <a href={exportHref} download className={buttonClasses("secondary", "sm")} data-testid="audit-export">
            <Download aria-hidden className="size-4" /> Export CSV
          </a>
        )}
      </div>
      {page.isPending ? <Loading /> : null}
      <ErrorMessage error={page.error} />
      {page.data && entries.length === 0 ? (
        <EmptyState
          title={
            page.data.searchedBackTo
              ? "No entry matches these filters yet"
              : filtered
                ? "No entry matches these filters"
                : "Nothing recorded yet"
          }
        >
          {filtered ? (
            <Button variant="secondary" size="sm" onClick={() => setTyped(NO_FILTERS)}>
              Clear the filters
            </Button>
          ) : (
            "Every change made in the dashboard or on the command line is written here, with who made it and from where."
          )}
        </EmptyState>
      ) : null}
      {entries.length > 0 ? (
        <DataTable
          label="Audit log"
          testId="audit-log"
          rows={entries}
          rowKey={(e) => String(e.id)}
          columns={[
            { header: "Time", cell: (e) => <When at={e.createdAt} seconds /> },
            {
              header: "Who",
              cell: (e) => (
                <span className="block break-words">
                  <span className={e.actor.type === "user" ? "" : "italic"}>{e.actor.label}</span>
                  {e.ip ? (
                    <span className="block font-mono text-xs text-muted" title={e.userAgent ?? undefined}>
                      from {e.ip}
                    </span>
                  ) : null}
                </span>
              ),
            },
            {
              header: "Did",
              cell: (e) => (
                <span title={e.action} data-action={e.action}>
                  {e.says}
                </span>
              ),
            },
            {
              header: "Target",
              cell: (e) => (
                <span className="break-words">
                  <span className="text-xs text-muted">{targetName(e.target.type)} </span>
                  {e.target.label}
                </span>
              ),
            },
            { header: "Changes", cell: (e) => <AuditChanges changes={e.changes} /> },
          ]}
        />
      ) : null}
      <SearchedBackTo at={page.isPlaceholderData ? null : page.data?.searchedBackTo} />
      {/* While another filter's first page loads, the page shown is the old filter's: not a cursor. */}
      <Pager pages={pages} next={page.isPlaceholderData ? null : page.data?.next} />
    </div>
  );
}

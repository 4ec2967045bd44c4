"use client";

import { useQuery } from "@tanstack/react-query";
import { Download } from "lucide-react";
import { buttonClasses } from "@/components/ui/button";
import { useTRPC } from "@/lib/trpc/client";

/** Usage by day and project over the range shown, as CSV: for the admins who may export it. */
export function UsageExportLink({
  teamSlug,
  projectSlug,
  range,
}: {
  teamSlug: string;
  projectSlug?: string;
  /** The days the page shows, as the server resolved them: the file holds the same. */
  range: { from: string; to: string };
}) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  if (!team.data?.can["usage.export"]) return null;
  const query = new URLSearchParams({
    team: teamSlug,
    ...(projectSlug && { project: projectSlug }),
    from: range.from,
    to: range.to,
  });
  return (
    <a
      href={`/api/export/usage?${query}`}
      download
      className={buttonClasses("secondary", "sm")}
      data-testid="usage-export"
    >
      <Download aria-hidden className="size-4" /> Export CSV
    </a>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Card } from "@/components/ui/feedback";
import { formatBytes, formatCount, formatPercent } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import { DataTable } from "./data-table";
import type { RangeInput } from "./range-picker";
import { SavingsCard } from "./savings-card";
import { TopSources } from "./top-sources";
import { UsageExportLink } from "./usage-export-link";
import { UsageSummary } from "./usage-summary";
import { INITIAL_RANGE } from "./first-view";

export function TeamUsage({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useState<RangeInput>(INITIAL_RANGE);
  const usage = useQuery(trpc.usage.team.queryOptions({ teamSlug, range }));
  const data = usage.data;
  return (
    <div className="space-y-6">
      <UsageSummary
        title="Team usage"
        chartTitle="Team deliveries and bytes per day"
        range={range}
        onRangeChange={setRange}
        usage={usage}
        exportLink={data ? <UsageExportLink teamSlug={teamSlug} range={data.range} /> : null}
      />
      {data ? (
        <Card title="By project">
          <DataTable
            label="Usage by project"
            rows={data.byProject}
            rowKey={(p) => p.projectId}
            columns={[
              {
                header: "Project",
                cell: (p) => (
                  <Link className="underline" href={`/t/${teamSlug}/p/${p.slug}/usage`}>
                    {p.name}
                  </Link>
                ),
              },
              { header: "Delivered", numeric: true, cell: (p) => formatCount(p.requests) },
              {
                header: "Share",
                numeric: true,
                cell: (p) => formatPercent(data.totals.requests > 0 ? p.requests / data.totals.requests : null, 0),
              },
              { header: "Bytes delivered", numeric: true, cell: (p) => formatBytes(p.bytes) },
            ]}
          />
        </Card>
      ) : null}
      {data ? <SavingsCard savings={data.savings} /> : null}
      {data ? (
        <Card title="Top source images by bytes delivered">
          <TopSources sources={data.savings.topSources} />
        </Card>
      ) : null}
    </div>
  );
}

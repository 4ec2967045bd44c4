"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { formatBytes, formatCount, formatPercent } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import { DailyChart } from "./daily-chart";
import { DataTable } from "./data-table";
import { Freshness } from "./freshness";
import { RangePicker, type RangeInput } from "./range-picker";
import { Stat } from "./stat";

export function TeamUsage({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useState<RangeInput>({ preset: "30d" });
  const usage = useQuery(trpc.usage.team.queryOptions({ teamSlug, range }));
  const data = usage.data;
  const period = data ? `${data.range.days} days` : "";
  return (
    <div className="space-y-6">
      <Card title="Team usage" actions={<RangePicker value={range} onChange={setRange} />}>
        <ErrorMessage error={usage.error} />
        {usage.isPending ? <Loading /> : null}
        {data ? (
          <div className="space-y-4">
            <Freshness metering={data.metering} />
            <div className="grid grid-cols-2 gap-3">
              <Stat label="Requests" value={formatCount(data.totals.requests)} trend={{ current: data.totals.requests, previous: data.previous.requests, period }} />
              <Stat label="Bytes sent" value={formatBytes(data.totals.bytes)} trend={{ current: data.totals.bytes, previous: data.previous.bytes, period }} />
            </div>
            <DailyChart series={data.series} title="Team requests and bytes per day" />
          </div>
        ) : null}
      </Card>
      {data ? (
        <Card title="By project">
          <DataTable
            label="Usage by project"
            rows={data.byProject}
            rowKey={(p) => p.projectId}
            columns={[
              { header: "Project", cell: (p) => <Link className="underline" href={`/t/${teamSlug}/p/${p.slug}/usage`}>{p.name}</Link> },
              { header: "Requests", numeric: true, cell: (p) => formatCount(p.requests) },
              { header: "Share", numeric: true, cell: (p) => formatPercent(data.totals.requests > 0 ? p.requests / data.totals.requests : null, 0) },
              { header: "Bytes", numeric: true, cell: (p) => formatBytes(p.bytes) },
            ]}
          />
        </Card>
      ) : null}
    </div>
  );
}

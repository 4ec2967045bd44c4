"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Card } from "@/components/ui/feedback";
import { formatBytes, formatCount, formatMs, formatPercent } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import { CacheTiers } from "./cache-tiers";
import { DataTable } from "./data-table";
import type { RangeInput } from "./range-picker";
import { QualityModes } from "./quality-modes";
import { RequestLogTable } from "./request-log-table";
import type { RequestLogStatus } from "@/server/errors";
import { Stat } from "./stat";
import { SavingsCard } from "./savings-card";
import { TopSources } from "./top-sources";
import { UsageExportLink } from "./usage-export-link";
import { UsageSummary } from "./usage-summary";
import { INITIAL_RANGE } from "./first-view";

export function ProjectUsage({
  teamSlug,
  projectSlug,
  statuses,
}: {
  teamSlug: string;
  projectSlug: string;
  statuses: readonly RequestLogStatus[];
}) {
  const trpc = useTRPC();
  const [range, setRange] = useState<RangeInput>(INITIAL_RANGE);
  const usage = useQuery(trpc.usage.project.queryOptions({ teamSlug, projectSlug, range }));
  const data = usage.data;
  return (
    <div className="space-y-6">
      <UsageSummary
        title="Usage"
        chartTitle="Delivered images and bytes per day"
        range={range}
        onRangeChange={setRange}
        usage={usage}
        exportLink={data ? <UsageExportLink teamSlug={teamSlug} projectSlug={projectSlug} range={data.range} /> : null}
        moreStats={
          data ? (
            <>
              <Stat
                label="Success rate"
                value={formatPercent(data.log.successRate)}
                detail="Of every request that named this project"
              />
              <Stat
                label="Processing"
                value={formatMs(data.log.processing.averageMs)}
                detail={`p95 ${formatMs(data.log.processing.p95Ms)}`}
              />
            </>
          ) : null
        }
      />
      {data ? (
        <div className="grid gap-6 lg:grid-cols-2">
          <Card title="By key">
            <DataTable
              label="Usage by key"
              rows={data.byKey}
              rowKey={(k) => k.apiKeyId}
              columns={[
                { header: "Key", cell: (k) => k.name },
                { header: "Delivered", numeric: true, cell: (k) => formatCount(k.requests) },
                { header: "Bytes delivered", numeric: true, cell: (k) => formatBytes(k.bytes) },
              ]}
            />
          </Card>
          <SavingsCard savings={data.savings} />
        </div>
      ) : null}
      {data ? (
        <Card title="Cache">
          <CacheTiers tiers={data.log.tiers} store={data.store} />
        </Card>
      ) : null}
      {data ? (
        <Card title="Quality modes">
          <QualityModes rows={data.qualityModes} />
        </Card>
      ) : null}
      {data ? (
        <Card title="Top source images by bytes delivered">
          <TopSources sources={data.savings.topSources} />
        </Card>
      ) : null}
      <Card title="Request log">
        <RequestLogTable teamSlug={teamSlug} projectSlug={projectSlug} range={range} statuses={statuses} />
      </Card>
    </div>
  );
}

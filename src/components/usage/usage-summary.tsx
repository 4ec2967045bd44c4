"use client";

import type { ReactNode } from "react";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { formatBytes, formatCount } from "@/lib/format";
import { DailyChart, type DailyPoint } from "./daily-chart";
import { Freshness, type MeteringView } from "./freshness";
import { RangePicker, type RangeInput } from "./range-picker";
import { Stat } from "./stat";
import { cn } from "@/lib/cn";

interface Totals {
  requests: number;
  bytes: number;
}

export interface UsageSummaryData {
  range: { from: string; to: string; days: number };
  series: DailyPoint[];
  totals: Totals;
  previous: Totals;
  metering: MeteringView;
}

/**
 * The top card of the project and team usage pages: range, freshness, metered totals with their trend
 * (plus whatever figures the page adds), and the daily chart.
 */
export function UsageSummary(props: {
  title: string;
  chartTitle: string;
  range: RangeInput;
  onRangeChange(range: RangeInput): void;
  usage: { data: UsageSummaryData | undefined; error: { message: string } | null; isPending: boolean };
  /** Figures the page adds after requests and bytes. */
  moreStats?: ReactNode;
}) {
  const { data, error, isPending } = props.usage;
  const period = data ? `${data.range.days} days` : "";
  return (
    <Card title={props.title} actions={<RangePicker value={props.range} onChange={props.onRangeChange} />}>
      <ErrorMessage error={error} />
      {isPending ? <Loading /> : null}
      {data ? (
        <div className="space-y-4">
          <Freshness metering={data.metering} />
          <p className="text-sm text-neutral-600">
            {data.range.from} to {data.range.to}
          </p>
          <div className={cn("grid grid-cols-2 gap-3", props.moreStats && "lg:grid-cols-4")}>
            <Stat
              label="Requests"
              value={formatCount(data.totals.requests)}
              trend={{ current: data.totals.requests, previous: data.previous.requests, period }}
            />
            <Stat
              label="Bytes sent"
              value={formatBytes(data.totals.bytes)}
              trend={{ current: data.totals.bytes, previous: data.previous.bytes, period }}
            />
            {props.moreStats}
          </div>
          <DailyChart series={data.series} title={props.chartTitle} />
        </div>
      ) : null}
    </Card>
  );
}

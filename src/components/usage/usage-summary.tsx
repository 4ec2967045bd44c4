"use client";

import type { ReactNode } from "react";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { formatBytes, formatCount } from "@/lib/format";
import type { RequestOutcomes } from "@/server/analytics/request-outcomes";
import { DailyChart, type DailyPoint } from "./daily-chart";
import { OutcomeChart, OUTCOME_VIEW } from "./outcome-chart";
import { Freshness, type MeteringView } from "./freshness";
import { RangePicker, type RangeInput } from "./range-picker";
import { Stat } from "./stat";
import { cn } from "@/lib/cn";
import { When } from "@/components/ui/when";

interface Totals {
  requests: number;
  bytes: number;
}

export interface UsageSummaryData {
  range: { from: string; to: string; days: number };
  series: DailyPoint[];
  totals: Totals;
  previous: Totals;
  outcomes: RequestOutcomes;
  metering: MeteringView;
}

/**
 * The top card of the project and team usage pages: range, freshness, every request by outcome, the
 * metered totals (successful deliveries, what billing counts) with their trend, whatever figures the
 * page adds, and the daily chart of the metered totals.
 */
export function UsageSummary(props: {
  title: string;
  chartTitle: string;
  range: RangeInput;
  onRangeChange(range: RangeInput): void;
  usage: { data: UsageSummaryData | undefined; error: { message: string } | null; isPending: boolean };
  /** Figures the page adds after requests and bytes. */
  moreStats?: ReactNode;
  /** The CSV export of what the range shows (admins). */
  exportLink?: ReactNode;
}) {
  const { data, error, isPending } = props.usage;
  const period = data ? `${data.range.days} days` : "";
  return (
    <Card
      title={props.title}
      actions={<RangePicker value={props.range} shown={data?.range} onChange={props.onRangeChange} />}
    >
      <ErrorMessage error={error} />
      {isPending ? <Loading /> : null}
      {data ? (
        <div className="space-y-4">
          <Freshness metering={data.metering} />
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-muted">
              <When day={data.range.from} /> to <When day={data.range.to} />
            </p>
            {props.exportLink}
          </div>
          <div
            className={cn(
              "grid grid-cols-2 gap-3",
              props.moreStats ? "sm:grid-cols-3 lg:grid-cols-5" : "sm:grid-cols-3",
            )}
          >
            <Stat
              label="All requests"
              value={formatCount(data.outcomes.totals.all)}
              detail={OUTCOME_VIEW.map(
                (o) => `${formatCount(data.outcomes.totals[o.key])} ${o.label.toLowerCase()}`,
              ).join(" · ")}
            />
            <Stat
              label="Delivered"
              value={formatCount(data.totals.requests)}
              detail="Served and cached answers (not modified included), as metered: what billing counts"
              trend={{ current: data.totals.requests, previous: data.previous.requests, period }}
            />
            <Stat
              label="Bytes delivered"
              value={formatBytes(data.totals.bytes)}
              trend={{ current: data.totals.bytes, previous: data.previous.bytes, period }}
            />
            {props.moreStats}
          </div>
          <OutcomeChart outcomes={data.outcomes} />
          <DailyChart series={data.series} title={props.chartTitle} />
        </div>
      ) : null}
    </Card>
  );
}

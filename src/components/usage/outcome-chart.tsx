"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { When } from "@/components/ui/when";
import { formatCompact, formatCount, utcStamp } from "@/lib/format";
import type { OutcomeBucket, RequestOutcomes } from "@/server/analytics/request-outcomes";
import { CHART_RIGHT, TOOLTIP_STYLE, utcDayLabel, utcDayTick } from "./chart-style";
import { DataTable } from "./data-table";

/** Each outcome's words and colour; the order is the stack's, bottom up. */
export const OUTCOME_VIEW = [
  { key: "served", label: "Served", meaning: "transformed for the request", colour: "var(--chart-served)" },
  { key: "cached", label: "Cached", meaning: "answered from a cache, or not modified", colour: "var(--chart-cached)" },
  {
    key: "refused",
    label: "Refused",
    meaning: "declined: signature, key, limit or policy",
    colour: "var(--chart-refused)",
  },
  {
    key: "failed",
    label: "Failed",
    meaning: "allowed but not made: the source or the server",
    colour: "var(--chart-failed)",
  },
] as const;

const ORDER: readonly string[] = OUTCOME_VIEW.map((o) => o.key);

const hourTick = new Intl.DateTimeFormat(undefined, { weekday: "short", hour: "2-digit", minute: "2-digit" });
const hourLabel = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * Every request of the range stacked by outcome, by the hour up to a week and by the day beyond. Hours
 * are the viewer's; days are UTC days (as the metered ledger's). The tooltip gives each outcome of the
 * bar pointed at; the same numbers are in a table below for screen readers and copying.
 */
export function OutcomeChart({ outcomes }: { outcomes: RequestOutcomes }) {
  const hourly = outcomes.granularity === "hour";
  const tick = (start: string) => (hourly ? hourTick.format(new Date(start)) : utcDayTick(start));
  const label = (start: string) =>
    hourly ? `${hourLabel.format(new Date(start))} (${utcStamp(start, "minute").slice(11)} UTC)` : utcDayLabel(start);
  const busy = outcomes.buckets.filter((b) => b.served + b.cached + b.refused + b.failed > 0);
  return (
    <figure>
      <figcaption className="text-sm font-medium">Every request by outcome, per {outcomes.granularity}</figcaption>
      <div
        role="img"
        aria-label={`Every request by outcome per ${outcomes.granularity}: ${OUTCOME_VIEW.map((o) => `${formatCount(outcomes.totals[o.key])} ${o.label.toLowerCase()}`).join(", ")}`}
        className="mt-2 h-56 w-full"
        data-testid="outcome-chart"
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            data={outcomes.buckets}
            margin={{ top: 8, right: CHART_RIGHT, bottom: 0, left: 0 }}
            barCategoryGap={1}
          >
            <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" vertical={false} />
            <XAxis dataKey="start" tickFormatter={tick} tick={{ fontSize: 11 }} minTickGap={24} />
            <YAxis tickFormatter={formatCompact} tick={{ fontSize: 11 }} width={44} allowDecimals={false} />
            <Tooltip
              cursor={{ fill: "var(--chart-grid)" }}
              labelFormatter={(start) => label(String(start))}
              itemSorter={(item) => ORDER.indexOf(String(item.dataKey))}
              formatter={(value) => formatCount(Number(value))}
              contentStyle={TOOLTIP_STYLE}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
            {OUTCOME_VIEW.map((o) => (
              <Bar
                key={o.key}
                dataKey={o.key}
                name={o.label}
                stackId="outcome"
                fill={o.colour}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-muted">Show as a table ({busy.length} with requests)</summary>
        <DataTable
          label={`Requests by outcome, per ${outcomes.granularity}`}
          testId="outcome-table"
          rows={busy}
          rowKey={(b) => b.start}
          columns={[
            {
              header: hourly ? "Hour" : "Day",
              cell: (b: OutcomeBucket) => (hourly ? <When at={b.start} /> : <When day={b.start.slice(0, 10)} />),
            },
            ...OUTCOME_VIEW.map((o) => ({
              header: o.label,
              numeric: true,
              cell: (b: OutcomeBucket) => formatCount(b[o.key]),
            })),
          ]}
        />
      </details>
    </figure>
  );
}

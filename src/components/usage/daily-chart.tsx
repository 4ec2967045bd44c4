"use client";

import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatBytes, formatCompact, formatCount } from "@/lib/format";
import { When } from "@/components/ui/when";
import { CHART_RIGHT, TOOLTIP_STYLE, utcDayLabel, utcDayTick } from "./chart-style";
import { DataTable } from "./data-table";

export interface DailyPoint {
  date: string;
  requests: number;
  bytes: number;
}

/**
 * Requests as bars, bytes as a dashed line with dots on its own axis: the two read apart by shape and
 * legend, not by colour alone. The same numbers are in a table below for screen readers and copying.
 */
export function DailyChart({ series, title }: { series: readonly DailyPoint[]; title: string }) {
  const total = series.reduce((sum, p) => sum + p.requests, 0);
  return (
    <figure>
      <figcaption className="text-sm font-medium">{title}</figcaption>
      <div
        role="img"
        aria-label={`${title}: ${formatCount(total)} delivered over ${series.length} days`}
        className="mt-2 h-64 w-full"
      >
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={series as DailyPoint[]} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" vertical={false} />
            <XAxis dataKey="date" tickFormatter={utcDayTick} tick={{ fontSize: 11 }} minTickGap={16} />
            <YAxis
              yAxisId="requests"
              tickFormatter={formatCompact}
              tick={{ fontSize: 11 }}
              width={44}
              allowDecimals={false}
            />
            <YAxis
              yAxisId="bytes"
              orientation="right"
              tickFormatter={formatBytes}
              tick={{ fontSize: 11 }}
              width={CHART_RIGHT - 8}
            />
            <Tooltip
              formatter={(value, name) =>
                name === "Bytes delivered" ? formatBytes(Number(value)) : formatCount(Number(value))
              }
              labelFormatter={(label) => utcDayLabel(String(label))}
              contentStyle={TOOLTIP_STYLE}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar
              yAxisId="requests"
              dataKey="requests"
              name="Delivered"
              fill="var(--chart-bar)"
              maxBarSize={28}
              isAnimationActive={false}
            />
            <Line
              yAxisId="bytes"
              dataKey="bytes"
              name="Bytes delivered"
              stroke="var(--chart-line)"
              strokeDasharray="6 3"
              strokeWidth={2}
              dot={{ r: 3 }}
              isAnimationActive={false}
            />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-muted">Show as a table</summary>
        <DataTable
          label={`${title}, per day`}
          testId="daily-table"
          rows={series}
          rowKey={(p) => p.date}
          columns={[
            { header: "Day", cell: (p) => <When day={p.date} /> },
            { header: "Delivered", numeric: true, cell: (p) => formatCount(p.requests) },
            { header: "Bytes delivered", numeric: true, cell: (p) => formatBytes(p.bytes) },
          ]}
        />
      </details>
    </figure>
  );
}

import { describeTrend } from "@/lib/format";
import { cn } from "@/lib/cn";

/** One figure with its label, and its change against the previous period when there is one. */
export function Stat({
  label,
  value,
  detail,
  trend,
}: {
  label: string;
  value: string;
  detail?: string;
  trend?: { current: number; previous: number; period: string };
}) {
  const change = trend ? describeTrend(trend.current, trend.previous) : null;
  return (
    <div className="rounded-lg border border-line bg-surface p-4" data-testid="stat">
      <p className="text-xs font-medium tracking-wide text-muted uppercase">{label}</p>
      <p
        className="mt-1 text-2xl font-semibold tabular-nums"
        data-testid={`stat-${label.toLowerCase().replace(/\W+/g, "-")}`}
      >
        {value}
      </p>
      {change ? (
        <p className={cn("mt-1 text-xs", change.direction === "down" ? "text-warning" : "text-muted")}>
          {change.text} <span className="text-subtle">vs previous {trend!.period}</span>
        </p>
      ) : null}
      {detail ? <p className="mt-1 text-xs text-subtle">{detail}</p> : null}
    </div>
  );
}

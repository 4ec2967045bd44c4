"use client";

import { Button } from "@/components/ui/button";
import { DateInput } from "@/components/ui/date-input";
import { fieldOf, useZodForm } from "@/lib/forms";
import { customRangeSchema } from "@/lib/schemas/date-range";

export type RangeInput = { preset: "recent" | "7d" | "30d" | "90d" } | { from: string; to: string };

const presets = [
  { preset: "recent", label: "Since the first request" },
  { preset: "7d", label: "7 days" },
  { preset: "30d", label: "30 days" },
  { preset: "90d", label: "90 days" },
] as const;

/**
 * Presets and a custom range of UTC dates; the server checks the range (at most 90 days). `shown` is
 * the range the page shows (a preset resolved by the server): the date fields say it, both of them.
 */
export function RangePicker({
  value,
  shown,
  onChange,
}: {
  value: RangeInput;
  shown?: { from: string; to: string };
  onChange(range: RangeInput): void;
}) {
  const today = new Date().toISOString().slice(0, 10);
  const dates = "from" in value ? value : (shown ?? { from: "", to: today });
  // A new range shown starts the fields again from it.
  return (
    <RangeFields key={`${dates.from}:${dates.to}`} value={value} dates={dates} today={today} onChange={onChange} />
  );
}

function RangeFields({
  value,
  dates,
  today,
  onChange,
}: {
  value: RangeInput;
  dates: { from: string; to: string };
  today: string;
  onChange(range: RangeInput): void;
}) {
  const form = useZodForm(customRangeSchema, dates);
  return (
    <div className="flex flex-wrap items-end gap-3">
      <div role="group" aria-label="Date range" className="flex gap-1">
        {presets.map((p) => {
          const current = "preset" in value && value.preset === p.preset;
          return (
            <Button
              key={p.preset}
              variant={current ? "primary" : "secondary"}
              aria-pressed={current}
              className="min-h-9 px-3"
              onClick={() => onChange({ preset: p.preset })}
            >
              {p.label}
            </Button>
          );
        })}
      </div>
      <form onSubmit={form.handleSubmit(onChange)} className="flex flex-wrap items-end gap-2 text-sm" noValidate>
        <label className="flex flex-col gap-1">
          <span className="text-xs text-muted">From (UTC)</span>
          <DateInput required max={today} {...fieldOf(form, "from")} />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs text-muted">To (UTC)</span>
          <DateInput required max={today} {...fieldOf(form, "to")} />
        </label>
        <Button type="submit" variant={"from" in value ? "primary" : "secondary"} className="min-h-9 px-3">
          Apply
        </Button>
      </form>
    </div>
  );
}

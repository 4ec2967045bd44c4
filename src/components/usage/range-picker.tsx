"use client";

import { Button } from "@/components/ui/button";
import { DateInput } from "@/components/ui/date-input";
import { fieldOf, useZodForm } from "@/lib/forms";
import { customRangeSchema } from "@/lib/schemas/date-range";

export type RangeInput = { preset: "7d" | "30d" | "90d" } | { from: string; to: string };

const presets = [
  { preset: "7d", label: "7 days" },
  { preset: "30d", label: "30 days" },
  { preset: "90d", label: "90 days" },
] as const;

/** Presets and a custom range of UTC dates; the server checks the range (at most 90 days). */
export function RangePicker({ value, onChange }: { value: RangeInput; onChange(range: RangeInput): void }) {
  const today = new Date().toISOString().slice(0, 10);
  const form = useZodForm(customRangeSchema, {
    from: "from" in value ? value.from : "",
    to: "to" in value ? value.to : today,
  });
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
          <span className="text-xs text-neutral-600">From (UTC)</span>
          <DateInput required max={today} {...fieldOf(form, "from")} />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs text-neutral-600">To (UTC)</span>
          <DateInput required max={today} {...fieldOf(form, "to")} />
        </label>
        <Button type="submit" variant={"from" in value ? "primary" : "secondary"} className="min-h-9 px-3">
          Apply
        </Button>
      </form>
    </div>
  );
}

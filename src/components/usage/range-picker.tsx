"use client";

import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";

export type RangeInput = { preset: "7d" | "30d" | "90d" } | { from: string; to: string };

const presets = [
  { preset: "7d", label: "7 days" },
  { preset: "30d", label: "30 days" },
  { preset: "90d", label: "90 days" },
] as const;

/** Presets and a custom range of UTC dates; the server checks the range (at most 90 days). */
export function RangePicker({ value, onChange }: { value: RangeInput; onChange(range: RangeInput): void }) {
  const today = new Date().toISOString().slice(0, 10);
  const [from, setFrom] = useState("from" in value ? value.from : "");
  const [to, setTo] = useState("to" in value ? value.to : today);
  function applyCustom(event: FormEvent) {
    event.preventDefault();
    if (from && to) onChange({ from, to });
  }
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
      <form onSubmit={applyCustom} className="flex flex-wrap items-end gap-2 text-sm">
        <label className="flex flex-col gap-1">
          <span className="text-xs text-neutral-600">From (UTC)</span>
          <input
            type="date"
            required
            max={today}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            className="rounded-md border border-neutral-300 px-2 py-1.5"
          />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs text-neutral-600">To (UTC)</span>
          <input
            type="date"
            required
            max={today}
            value={to}
            onChange={(e) => setTo(e.target.value)}
            className="rounded-md border border-neutral-300 px-2 py-1.5"
          />
        </label>
        <Button type="submit" variant={"from" in value ? "primary" : "secondary"} className="min-h-9 px-3">
          Apply
        </Button>
      </form>
    </div>
  );
}

"use client";

import { expiryChoices, type ExpiryChoice } from "./expiry";
import { Select } from "@/components/ui/select";

export function ExpiryField({
  choice,
  onChoice,
  date,
  onDate,
}: {
  choice: ExpiryChoice;
  onChoice(c: ExpiryChoice): void;
  date: string;
  onDate(d: string): void;
}) {
  return (
    <div className="flex flex-wrap items-end gap-3">
      <label className="text-sm">
        <span className="block font-medium">Expires</span>
        <Select className="mt-1" value={choice} onChange={(e) => onChoice(e.target.value as ExpiryChoice)}>
          {expiryChoices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </Select>
      </label>
      {choice === "custom" ? (
        <label className="text-sm">
          <span className="block font-medium">Date (UTC)</span>
          <input
            type="date"
            className="mt-1 rounded-md border border-neutral-300 px-2 py-1.5"
            value={date}
            onChange={(e) => onDate(e.target.value)}
          />
        </label>
      ) : null}
    </div>
  );
}

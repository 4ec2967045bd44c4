"use client";

import { Select } from "@/components/ui/select";
import type { fieldOf } from "@/lib/forms";
import { expiryChoices } from "./expiry";

type Registered = ReturnType<typeof fieldOf>;

/** The key dialogs' expiry: a choice, and the day (UTC) when the choice is "On a date…". */
export function ExpiryField({ choice, date, custom }: { choice: Registered; date: Registered; custom: boolean }) {
  const { error, ...dateInput } = date;
  return (
    <div className="flex flex-wrap items-end gap-3">
      <label className="text-sm">
        <span className="block font-medium">Expires</span>
        <Select className="mt-1" {...choice}>
          {expiryChoices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </Select>
      </label>
      {custom ? (
        <label className="text-sm">
          <span className="block font-medium">Date (UTC)</span>
          <input
            type="date"
            className="mt-1 rounded-md border border-neutral-300 px-2 py-1.5 aria-[invalid=true]:border-red-500"
            aria-invalid={error ? true : undefined}
            {...dateInput}
          />
          {error ? (
            <span role="alert" className="mt-1 block text-xs text-red-600">
              {error}
            </span>
          ) : null}
        </label>
      ) : null}
    </div>
  );
}

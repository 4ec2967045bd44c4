"use client";

import { DateInput } from "@/components/ui/date-input";
import { Select } from "@/components/ui/select";
import type { fieldOf } from "@/lib/forms";
import { expiryChoices } from "./expiry";

type Registered = ReturnType<typeof fieldOf>;

/** The key dialogs' expiry: a choice, and the day (UTC) when the choice is "On a date…". */
export function ExpiryField({ choice, date, custom }: { choice: Registered; date: Registered; custom: boolean }) {
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
          <DateInput className="mt-1" {...date} />
        </label>
      ) : null}
    </div>
  );
}

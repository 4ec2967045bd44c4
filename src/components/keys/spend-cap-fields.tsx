"use client";

import type { UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { Field } from "@/components/ui/field";
import { fieldOf } from "@/lib/forms";
import type { keyFormSchema } from "@/lib/schemas/api-key";
import { SPEND_CAPS, SPEND_CAP_NAMES } from "@/lib/schemas/spend-cap";

type KeyForm = UseFormReturn<z.input<typeof keyFormSchema>, unknown, z.output<typeof keyFormSchema>>;

/** The Edit dialog's spend caps: transforms and megabytes delivered per UTC day and month, empty for none. */
export function SpendCapFields({ form }: { form: KeyForm }) {
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-medium">Spend caps</legend>
      <div className="grid gap-3 sm:grid-cols-2">
        {SPEND_CAP_NAMES.map((cap) => (
          <Field
            key={cap}
            label={SPEND_CAPS[cap].field}
            inputMode="numeric"
            hint="Empty: no cap"
            {...fieldOf(form, `spendCap.${cap}`)}
          />
        ))}
      </div>
      <p className="text-xs text-subtle">
        Counted in UTC days and months, cache hits included in the bytes. At 80 % the team&apos;s admins are alerted; at
        100 % the key&apos;s new transforms are refused (HTTP 429, SPEND_CAP_REACHED) until the period ends, while
        images already made are still served. Usage is counted once each minute has ended, so a cap can be passed by up
        to about two minutes of the key&apos;s transforms.
      </p>
    </fieldset>
  );
}

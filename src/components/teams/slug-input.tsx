"use client";

import { useQuery } from "@tanstack/react-query";
import { Field } from "@/components/ui/field";
import type { fieldOf } from "@/lib/forms";
import { useTRPC } from "@/lib/trpc/client";
import { useDebounced } from "@/lib/use-debounced";

/**
 * A team slug field that says, while typing, whether the slug is free (debounced server check). The
 * form owns the field; `value` is what it holds now; `current` is the team's slug when renaming it (the
 * server answers for a new team's slug only while the account may still make one).
 */
export function TeamSlugField({
  field,
  value,
  current,
}: {
  field: ReturnType<typeof fieldOf>;
  value: string;
  current?: string;
}) {
  const trpc = useTRPC();
  const debounced = useDebounced(value);
  const unchanged = debounced === current;
  const check = useQuery({
    ...trpc.account.slugAvailable.queryOptions({ slug: debounced, teamSlug: current }),
    enabled: debounced.length > 0 && !unchanged,
  });
  const status =
    unchanged || !debounced
      ? null
      : check.isFetching || debounced !== value
        ? "Checking…"
        : check.data?.available
          ? "Available"
          : null;
  const taken = !unchanged && debounced === value && check.data && !check.data.available ? check.data.reason : null;
  return (
    <Field
      label="Team slug"
      autoComplete="off"
      required
      hint={
        <span aria-live="polite">
          {status ?? "Used in dashboard addresses: lowercase letters, digits and hyphens."}
        </span>
      }
      {...field}
      error={field.error ?? taken}
    />
  );
}

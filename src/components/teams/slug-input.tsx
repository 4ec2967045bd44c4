"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";

/** A team slug field that says, while typing, whether the slug is free (debounced server check). */
export function TeamSlugField({
  value,
  onChange,
  current,
}: {
  value: string;
  onChange(value: string): void;
  current?: string;
}) {
  const trpc = useTRPC();
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), 300);
    return () => clearTimeout(timer);
  }, [value]);
  const unchanged = debounced === current;
  const check = useQuery({
    ...trpc.account.slugAvailable.queryOptions({ slug: debounced }),
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
  return (
    <Field
      label="Team slug"
      name="slug"
      value={value}
      onChange={(e) => onChange(e.target.value.toLowerCase())}
      autoComplete="off"
      required
      hint={
        <span aria-live="polite">
          {status ?? "Used in dashboard addresses: lowercase letters, digits and hyphens."}
        </span>
      }
      error={!unchanged && debounced === value && check.data && !check.data.available ? check.data.reason : null}
    />
  );
}

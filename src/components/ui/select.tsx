import type { ComponentProps } from "react";
import { cn } from "@/lib/cn";
import { FieldMessage } from "./field";

const sizes = {
  md: "px-2 py-2",
  sm: "px-2 py-1.5",
} as const;

/**
 * The dashboard's native select: one look everywhere; `className` adds to it or overrides it. A form's
 * message for it (`error`, as fieldOf gives it) is shown under it.
 */
export function Select({
  size = "md",
  className,
  error,
  ...select
}: Omit<ComponentProps<"select">, "size"> & { size?: keyof typeof sizes; error?: string }) {
  return (
    <>
      <select
        className={cn(
          "select-chevron rounded-md border border-line-strong bg-surface aria-[invalid=true]:border-danger",
          sizes[size],
          className,
        )}
        aria-invalid={error ? true : undefined}
        {...select}
      />
      <FieldMessage message={error} />
    </>
  );
}

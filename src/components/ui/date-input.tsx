import type { ComponentProps } from "react";
import { cn } from "@/lib/cn";
import { FieldMessage } from "./field";

/** A native date input (YYYY-MM-DD, as the schemas take it), with a form's message under it like Select. */
export function DateInput({ className, error, ...input }: ComponentProps<"input"> & { error?: string }) {
  return (
    <>
      <input
        type="date"
        className={cn("rounded-md border border-line-strong px-2 py-1.5 aria-[invalid=true]:border-danger", className)}
        aria-invalid={error ? true : undefined}
        {...input}
      />
      <FieldMessage message={error} />
    </>
  );
}

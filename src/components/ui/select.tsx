import type { ComponentProps } from "react";
import { cn } from "@/lib/cn";

const sizes = {
  md: "px-2 py-2",
  sm: "px-2 py-1.5",
} as const;

/** The dashboard's native select: one look everywhere; `className` adds to it or overrides it. */
export function Select({
  size = "md",
  className,
  error: _error,
  ...select
}: Omit<ComponentProps<"select">, "size"> & { size?: keyof typeof sizes; error?: string }) {
  return <select className={cn("rounded-md border border-neutral-300 bg-white", sizes[size], className)} {...select} />;
}

import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

/**
 * Class names from conditions, with later Tailwind utilities winning over earlier ones of the same kind
 * (`cn("px-2", "px-4")` is `px-4`), so a caller's className overrides a primitive's default.
 */
export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs));
}

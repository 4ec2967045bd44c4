import { LoaderCircle, type LucideIcon } from "lucide-react";
import type { ButtonHTMLAttributes } from "react";
import { cn } from "@/lib/cn";

/** `danger` is the one look of every destructive action, from a table row's Revoke to a dialog's Delete. */
const variants = {
  primary: "bg-ink text-on-solid hover:bg-ink-soft disabled:bg-faint",
  secondary: "border border-line-strong bg-surface text-ink hover:bg-sunken disabled:text-faint",
  danger: "bg-danger-solid text-on-solid hover:bg-danger disabled:bg-danger-line",
  ghost: "text-ink-soft hover:bg-sunken",
} as const;

const sizes = {
  md: "min-h-10 px-4 text-sm",
  /** In a table row or beside a field. */
  sm: "min-h-8 px-2 text-xs",
} as const;

/** A button's look, for a link that does a button's job (goes somewhere the action is). */
export function buttonClasses(variant: keyof typeof variants = "primary", size: keyof typeof sizes = "md"): string {
  return cn(
    "inline-flex items-center justify-center gap-1.5 rounded-md font-medium transition-colors disabled:cursor-not-allowed",
    variants[variant],
    sizes[size],
  );
}

/**
 * The dashboard's button. `pending` is for a button that sends something: it is disabled, spins and
 * says what it is doing (`pendingLabel`, e.g. "Saving…") until the answer comes.
 */
export function Button({
  variant = "primary",
  size = "md",
  icon: Icon,
  pending = false,
  pendingLabel,
  className = "",
  disabled,
  children,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: keyof typeof variants;
  size?: keyof typeof sizes;
  icon?: LucideIcon;
  pending?: boolean;
  pendingLabel?: string;
}) {
  return (
    <button
      type="button"
      className={cn(buttonClasses(variant, size), className)}
      disabled={disabled || pending}
      aria-busy={pending || undefined}
      {...props}
    >
      {pending ? (
        <LoaderCircle aria-hidden className="size-4 shrink-0 animate-spin motion-reduce:animate-none" />
      ) : Icon ? (
        <Icon aria-hidden className="size-4 shrink-0" />
      ) : null}
      {pending && pendingLabel ? pendingLabel : children}
    </button>
  );
}

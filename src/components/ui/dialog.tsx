"use client";

import { Dialog as RadixDialog } from "radix-ui";
import type { ReactNode } from "react";
import { Button } from "./button";

/**
 * Radix dialog: focus trapped inside, Escape closes, focus returns to the trigger. Not `dismissible`:
 * neither Escape nor a click outside closes it, only its own buttons (a secret shown once).
 */
export function Dialog({
  open,
  onOpenChange,
  trigger,
  title,
  description,
  dismissible = true,
  children,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  trigger?: ReactNode;
  title: string;
  description?: string;
  dismissible?: boolean;
  children: ReactNode;
}) {
  const keepOpen = dismissible ? undefined : (event: Event) => event.preventDefault();
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      {trigger ? <RadixDialog.Trigger asChild>{trigger}</RadixDialog.Trigger> : null}
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <RadixDialog.Content
          onEscapeKeyDown={keepOpen}
          onPointerDownOutside={keepOpen}
          onInteractOutside={keepOpen}
          // Without a description nothing describes the dialog: its title is not read a second time.
          {...(description ? {} : { "aria-describedby": undefined })}
          className="fixed top-1/2 left-1/2 z-50 max-h-[90vh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-surface p-6 shadow-xl"
        >
          <RadixDialog.Title className="text-lg font-semibold">{title}</RadixDialog.Title>
          {description ? (
            <RadixDialog.Description className="mt-1 text-sm text-muted">{description}</RadixDialog.Description>
          ) : null}
          <div className="mt-4">{children}</div>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

/** Cancel and the dialog's action; the action submits the dialog's form unless onSubmit is given. */
export function DialogActions({
  onCancel,
  submitLabel,
  disabled,
  pending,
  pendingLabel = "Saving…",
  onSubmit,
}: {
  onCancel(): void;
  submitLabel: string;
  disabled?: boolean;
  /** The action was sent: the button says so until the answer comes. */
  pending?: boolean;
  pendingLabel?: string;
  onSubmit?: () => void;
}) {
  return (
    <div className="flex justify-end gap-2">
      <Button variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
      <Button
        type={onSubmit ? "button" : "submit"}
        disabled={disabled}
        pending={pending}
        pendingLabel={pendingLabel}
        onClick={onSubmit}
      >
        {submitLabel}
      </Button>
    </div>
  );
}

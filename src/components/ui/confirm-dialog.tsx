"use client";

import { AlertDialog } from "radix-ui";
import { useState, type ReactNode } from "react";
import { Button } from "./button";
import { ErrorMessage } from "./feedback";

/**
 * Irreversible actions: a Radix alert dialog, optionally asking to type a word (the slug) first.
 * The dialog stays open and shows the server's message when the action fails.
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  typeToConfirm,
  onConfirm,
  children,
  onOpenChange,
  confirmDisabled = false,
}: {
  trigger: ReactNode;
  title: string;
  description: string;
  confirmLabel: string;
  typeToConfirm?: string;
  onConfirm(typed: string): Promise<unknown>;
  /** What the action would do, shown under the description (mounted only while the dialog is open). */
  children?: ReactNode;
  onOpenChange?(open: boolean): void;
  /** The action waits, e.g. for what `children` still has to load. */
  confirmDisabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<{ message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm(typed);
      setOpen(false);
      onOpenChange?.(false);
    } catch (caught) {
      setError(caught as { message: string });
    } finally {
      setBusy(false);
    }
  }
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        onOpenChange?.(next);
        setTyped("");
        setError(null);
      }}
    >
      <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg bg-surface p-6 shadow-xl">
          <AlertDialog.Title className="text-lg font-semibold">{title}</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-muted">{description}</AlertDialog.Description>
          {children}
          {typeToConfirm ? (
            <label className="mt-4 block text-sm">
              Type <code className="rounded bg-sunken px-1">{typeToConfirm}</code> to confirm
              <input
                className="mt-1 w-full rounded-md border border-line-strong px-3 py-2"
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
                autoComplete="off"
              />
            </label>
          ) : null}
          <div className="mt-4">
            <ErrorMessage error={error} />
          </div>
          <div className="mt-4 flex justify-end gap-2">
            <AlertDialog.Cancel asChild>
              <Button variant="secondary">Cancel</Button>
            </AlertDialog.Cancel>
            <Button
              variant="danger"
              disabled={confirmDisabled || (typeToConfirm !== undefined && typed !== typeToConfirm)}
              pending={busy}
              pendingLabel="Working…"
              onClick={confirm}
            >
              {confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

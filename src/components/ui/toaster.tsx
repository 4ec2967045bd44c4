"use client";

import { CircleAlert, CircleCheck, X } from "lucide-react";
import { Toast } from "radix-ui";
import { useSyncExternalStore } from "react";
import { cn } from "@/lib/cn";
import { currentToasts, dismissToast, serverToasts, subscribeToasts } from "@/lib/toast-store";

/**
 * Radix toasts: announced to screen readers, paused while hovered or focused, F8 reaches them, a swipe
 * or Escape dismisses one. A failure stays twice as long; its detail is in the form that sent it.
 */
export function Toaster() {
  const toasts = useSyncExternalStore(subscribeToasts, currentToasts, serverToasts);
  return (
    <Toast.Provider swipeDirection="right" duration={5000}>
      {toasts.map((t) => (
        <Toast.Root
          key={t.id}
          type={t.tone === "failure" ? "foreground" : "background"}
          duration={t.tone === "failure" ? 10_000 : undefined}
          onOpenChange={(open) => (open ? undefined : dismissToast(t.id))}
          data-testid="toast"
          className={cn(
            "flex items-start gap-3 rounded-lg border bg-surface p-3 text-sm shadow-lg",
            t.tone === "failure" ? "border-danger-line" : "border-line",
          )}
        >
          {t.tone === "failure" ? (
            <CircleAlert aria-hidden className="mt-0.5 size-4 shrink-0 text-danger" />
          ) : (
            <CircleCheck aria-hidden className="mt-0.5 size-4 shrink-0 text-ok" />
          )}
          <div className="min-w-0 flex-1">
            <Toast.Title className="font-medium">{t.title}</Toast.Title>
            {t.description ? (
              <Toast.Description className="mt-0.5 text-muted">{t.description}</Toast.Description>
            ) : null}
          </div>
          <Toast.Close aria-label="Dismiss" className="rounded p-0.5 text-subtle hover:bg-sunken">
            <X aria-hidden className="size-4" />
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport className="fixed right-0 bottom-0 z-[60] flex w-full max-w-sm flex-col gap-2 p-4 outline-none" />
    </Toast.Provider>
  );
}

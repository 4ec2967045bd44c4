/**
 * The toasts waiting to be shown: a tiny store outside React, so a mutation's outcome (reported by the
 * query client, not by a component) can raise one.
 */
export interface ToastMessage {
  id: number;
  tone: "success" | "failure";
  title: string;
  description?: string;
  /** What raised it (a mutation's procedure): its later success takes its failures back. */
  source?: string;
}

let toasts: readonly ToastMessage[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function publish(next: readonly ToastMessage[]) {
  toasts = next;
  for (const listener of listeners) listener();
}

/** At most three at once: a burst of saves does not cover the page. */
export function toast(message: Omit<ToastMessage, "id">): void {
  publish([...toasts, { ...message, id: nextId++ }].slice(-3));
}

export function dismissToast(id: number): void {
  publish(toasts.filter((t) => t.id !== id));
}

/** The failures `source` raised, once it went through: they no longer say anything true. */
export function dismissFailuresOf(source: string): void {
  if (toasts.some((t) => t.tone === "failure" && t.source === source))
    publish(toasts.filter((t) => t.tone !== "failure" || t.source !== source));
}

export function subscribeToasts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function currentToasts(): readonly ToastMessage[] {
  return toasts;
}

const none: readonly ToastMessage[] = [];
/** The server renders no toasts. */
export function serverToasts(): readonly ToastMessage[] {
  return none;
}

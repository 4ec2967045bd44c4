import type { ReactNode } from "react";

export function ErrorMessage({ error }: { error: { message?: string } | null | undefined }) {
  if (!error?.message) return null;
  return (
    <p role="alert" className="rounded-md border border-danger-line bg-danger-soft px-3 py-2 text-sm text-danger">
      {error.message}
    </p>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p aria-busy="true" className="animate-pulse py-6 text-sm text-subtle">
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-line-strong bg-surface p-8 text-center">
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-2 text-sm text-muted">{children}</div> : null}
    </div>
  );
}

/**
 * An empty list whose form is further down the page: the way to it for those who may use it, who
 * does it for those who may not.
 */
export function EmptyWithFormBelow({ title, formId, canWrite }: { title: string; formId: string; canWrite: boolean }) {
  return (
    <EmptyState title={title}>
      {canWrite ? (
        <a href={`#${formId}`} className="underline underline-offset-4">
          Add the first one with the form below
        </a>
      ) : (
        "Admins of the team add them."
      )}
    </EmptyState>
  );
}

export function Card({
  title,
  actions,
  id,
  children,
}: {
  title?: string;
  actions?: ReactNode;
  /** A target for a link from elsewhere on the page. */
  id?: string;
  children: ReactNode;
}) {
  return (
    <section id={id} className="scroll-mt-4 rounded-lg border border-line bg-surface p-4 shadow-sm sm:p-6">
      {title || actions ? (
        <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
          {title ? <h2 className="text-lg font-semibold">{title}</h2> : <span />}
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

/** Irreversible actions, set apart in red at the bottom of a settings page. */
export function DangerZone({ children }: { children: ReactNode }) {
  return (
    <section className="rounded-lg border border-danger-line bg-surface p-4 sm:p-6">
      <h2 className="text-lg font-semibold text-danger">Danger zone</h2>
      <div className="mt-4 flex flex-wrap gap-3">{children}</div>
    </section>
  );
}

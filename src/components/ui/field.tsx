import { useId, type ComponentProps, type ReactNode } from "react";
import { cn } from "@/lib/cn";

const control =
  "w-full rounded-md border border-line-strong bg-surface px-3 py-2 text-sm shadow-sm placeholder:text-faint aria-[invalid=true]:border-danger";

interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string | null | undefined;
}

/** A labelled input whose hint and error are announced with it (aria-describedby); takes a form's ref. */
export function Field({ label, hint, error, ...input }: FieldProps & ComponentProps<"input">) {
  return (
    <FieldFrame
      label={label}
      hint={hint}
      error={error}
      render={(a11y) => <input className={control} {...a11y} {...input} />}
    />
  );
}

export function TextAreaField({ label, hint, error, ...input }: FieldProps & ComponentProps<"textarea">) {
  return (
    <FieldFrame
      label={label}
      hint={hint}
      error={error}
      render={(a11y) => <textarea className={cn(control, "font-mono")} {...a11y} {...input} />}
    />
  );
}

interface ControlA11y {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string;
}

function FieldFrame({ label, hint, error, render }: FieldProps & { render(a11y: ControlA11y): ReactNode }) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      {render({ id, "aria-invalid": error ? true : undefined, "aria-describedby": `${id}-hint ${id}-error` })}
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-subtle">
          {hint}
        </p>
      ) : null}
      <p id={`${id}-error`} className="text-xs text-danger" role={error ? "alert" : undefined}>
        {error ?? ""}
      </p>
    </div>
  );
}

/** A form's message under a control that has no frame of its own (a select, a date input). */
export function FieldMessage({ message }: { message: string | undefined }) {
  return message ? (
    <span role="alert" className="mt-1 block text-xs text-danger">
      {message}
    </span>
  ) : null;
}

import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from "react";

const control = "w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-neutral-400 aria-[invalid=true]:border-red-500";

interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string | null;
}

/** A labelled input whose hint and error are announced with it (aria-describedby). */
export function Field({ label, hint, error, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <input id={id} className={control} aria-invalid={error ? true : undefined} aria-describedby={`${id}-hint ${id}-error`} {...input} />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextAreaField({ label, hint, error, ...input }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <textarea id={id} className={`${control} font-mono`} aria-invalid={error ? true : undefined} aria-describedby={`${id}-hint ${id}-error`} {...input} />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

function FieldNotes({ id, hint, error }: { id: string; hint?: ReactNode; error?: string | null }) {
  return (
    <>
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-neutral-500">
          {hint}
        </p>
      ) : null}
      <p id={`${id}-error`} className="text-xs text-red-600" role={error ? "alert" : undefined}>
        {error ?? ""}
      </p>
    </>
  );
}

import { zodResolver } from "@hookform/resolvers/zod";
import {
  get,
  useForm,
  type DefaultValues,
  type FieldValues,
  type Path,
  type RegisterOptions,
  type UseFormReturn,
} from "react-hook-form";
import type { z } from "zod";

/** A mutation's error, with what the tRPC error formatter adds to a refusal (src/server/api/trpc.ts). */
export type Refusal = { message: string; data?: { fieldErrors?: Record<string, string[]> | null } | null } | null;

/**
 * A mutation's refusal split for one form: the first message of each field the form shows, to sit next
 * to it; at form level, the messages of fields it does not show, or the refusal itself when it names
 * no field (not found, a conflict).
 */
export function formErrors<F extends string>(
  error: Refusal,
  fields: readonly F[],
): { field: Partial<Record<F, string>>; form: { message: string } | null } {
  const byField = error?.data?.fieldErrors ?? null;
  if (!error || !byField) return { field: {}, form: error };
  const field: Partial<Record<F, string>> = {};
  for (const name of fields) {
    const first = byField[name]?.[0];
    if (first) field[name] = first;
  }
  const unshown = Object.entries(byField)
    .filter(([name]) => !(fields as readonly string[]).includes(name))
    .map(([, messages]) => messages[0])
    .filter((message): message is string => message !== undefined);
  return { field, form: unshown.length > 0 ? { message: unshown.join(" ") } : null };
}

/**
 * One react-hook-form state per form, checked by the zod schema the procedure takes (src/lib/schemas):
 * a mistake is shown at its field before anything is sent, in the words the server would use.
 */
export function useZodForm<S extends z.ZodType<FieldValues, FieldValues>>(
  schema: S,
  defaultValues: DefaultValues<z.input<S>>,
) {
  return useForm<z.input<S>, unknown, z.output<S>>({
    resolver: zodResolver(schema),
    defaultValues,
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any output type: only the field values matter here
type AnyForm<T extends FieldValues> = UseFormReturn<T, any, any>;

/**
 * A field's registration and its message, spread onto <Field>, <TextAreaField> or <Select>. The default
 * value goes into the element too, so the server's HTML shows it before the form is hydrated.
 */
export function fieldOf<T extends FieldValues>(form: AnyForm<T>, name: Path<T>, options?: RegisterOptions<T, Path<T>>) {
  const error = get(form.formState.errors, name) as { message?: string } | undefined;
  const defaultValue = get(form.formState.defaultValues, name) as string | number | undefined;
  return { ...form.register(name, options), defaultValue, error: error?.message };
}

/** A checkbox's registration, checked in the server's HTML as in the form. */
export function checkboxOf<T extends FieldValues>(form: AnyForm<T>, name: Path<T>) {
  return { type: "checkbox", ...form.register(name), defaultChecked: Boolean(get(form.formState.defaultValues, name)) };
}

/**
 * Puts a mutation's refusal into its form: the messages of the form's own fields next to them, the rest
 * (what the server alone knows: a taken slug, a refused host) above the submit button as `root.server`.
 */
export function showRefusal<T extends FieldValues>(form: AnyForm<T>, error: Refusal) {
  const split = formErrors(error, Object.keys(form.getValues()));
  for (const [name, message] of Object.entries(split.field))
    form.setError(name as Path<T>, { type: "server", message: message as string });
  if (split.form) form.setError("root.server", { type: "server", message: split.form.message });
}

/** The form-level message, for <ErrorMessage>. */
export const formLevelError = <T extends FieldValues>(form: AnyForm<T>) => form.formState.errors.root?.server;

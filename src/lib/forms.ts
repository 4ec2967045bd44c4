/** What the tRPC error formatter sends with a refusal (src/server/api/trpc.ts). */
interface RefusalData {
  fieldErrors?: Record<string, string[]> | null;
}

/**
 * A mutation's refusal split for one form: the first message of each field the form shows, to sit next
 * to it; at form level, the messages of fields it does not show, or the refusal itself when it names
 * no field (not found, a conflict).
 */
export function formErrors<F extends string>(
  error: { message: string; data?: RefusalData | null } | null,
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

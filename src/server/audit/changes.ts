/** Before → after of each field that changed. */
export type AuditChanges = Record<string, { from: unknown; to: unknown }>;

/**
 * Fields whose values never enter the log, whatever the caller passes: a change to one is recorded as
 * having happened, with both sides replaced. Named by every spelling the tenancy code uses.
 */
const REDACTED_FIELDS = new Set([
  "secret",
  "secretKey",
  "secretAccessKey",
  "sealedSecret",
  "encryptedSecret",
  "token",
  "tokenHash",
  "password",
  "signingSecret",
]);
export const REDACTED = "[redacted]";

/**
 * The fields of `fields` whose values differ between `before` (null: the thing is new) and `after`
 * (null: it is gone), compared as JSON (dates as ISO strings, lists in order). Null when nothing changed.
 */
export function changesBetween<T extends object>(
  before: Partial<T> | null,
  after: Partial<T> | null,
  fields: readonly (keyof T & string)[],
): AuditChanges | null {
  const changes: AuditChanges = {};
  for (const field of fields) {
    const from = before?.[field];
    const to = after?.[field];
    if (to === undefined && after !== null) continue; // not part of this change
    if (JSON.stringify(from ?? null) === JSON.stringify(to ?? null)) continue;
    changes[field] = { from: plain(from), to: plain(to) };
  }
  return redacted(changes);
}

/** A secret replaced: that it happened, never what it was or became. */
export function secretReplaced(field: string): AuditChanges {
  return { [field]: { from: REDACTED, to: REDACTED } };
}

/** Every redacted field's values replaced; null for no changes at all. */
export function redacted(changes: AuditChanges | null | undefined): AuditChanges | null {
  if (!changes || Object.keys(changes).length === 0) return null;
  return Object.fromEntries(
    Object.entries(changes).map(([field, change]) =>
      REDACTED_FIELDS.has(field) ? [field, { from: REDACTED, to: REDACTED }] : [field, change],
    ),
  );
}

function plain(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

import { z } from "zod";
import { auditActionNames, auditTargetTypes } from "@/lib/audit-actions";

/** Longer than any name worth typing; every row a filter reads is compared with it. */
export const AUDIT_TARGET_FILTER_MAX = 64;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Choose a day (YYYY-MM-DD)");

/** What the audit log is filtered by; every field may be left out. */
export const auditFilterSchema = z.object({
  /** A user's id, or `cli` for the command line. */
  actor: z.string().min(1).max(100).optional(),
  action: z.enum(auditActionNames).optional(),
  targetType: z.enum(auditTargetTypes).optional(),
  /** Part of the target's name (a key's, a project's, an e-mail), case-insensitive. */
  target: z
    .string()
    .trim()
    .max(AUDIT_TARGET_FILTER_MAX, { error: `Target: at most ${AUDIT_TARGET_FILTER_MAX} characters` })
    .optional()
    .transform((text) => text || undefined),
  /** UTC days, both included. */
  from: isoDate.optional(),
  to: isoDate.optional(),
});
export type AuditFilter = Partial<z.infer<typeof auditFilterSchema>>;

/** A year: what one export (and one filtered view) covers at most. */
export const MAX_AUDIT_RANGE_DAYS = 366;

/** Why these days cannot be shown or exported, said before asking (the server checks it again). */
export function auditRangeProblem(from: string | undefined, to: string | undefined): string | null {
  if (!from || !to) return null;
  if (from > to) return "The start date must not be after the end date";
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  return days > MAX_AUDIT_RANGE_DAYS ? `A range covers at most ${MAX_AUDIT_RANGE_DAYS} days` : null;
}

/** Entries a page of the log shows (the pages' server render and their client ask for the same). */
export const AUDIT_PAGE = 50;

export const auditPageSchema = auditFilterSchema.extend({
  /** The last id of the page before: entries older than it. */
  before: z.number().int().positive().optional(),
  limit: z.number().int().min(1).max(100).default(50),
});

import { z } from "zod";
import { auditActionNames, auditTargetTypes } from "@/lib/audit-actions";

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
    .max(200, { error: "Target: at most 200 characters" })
    .optional()
    .transform((text) => text || undefined),
  /** UTC days, both included. */
  from: isoDate.optional(),
  to: isoDate.optional(),
});
export type AuditFilter = Partial<z.infer<typeof auditFilterSchema>>;

/** Entries a page of the log shows (the pages' server render and their client ask for the same). */
export const AUDIT_PAGE = 50;

export const auditPageSchema = auditFilterSchema.extend({
  /** The last id of the page before: entries older than it. */
  before: z.number().int().positive().optional(),
  limit: z.number().int().min(1).max(100).default(50),
});

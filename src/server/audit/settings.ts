import { group, integer, type ValuesOf } from "@/server/config/setting";

export const auditSettings = group("Audit log", {
  OPTSTUFF_AUDIT_RETENTION_DAYS: integer({
    default: 365,
    min: 1,
    max: 3650,
    doc: "How many days the audit log keeps its entries (who changed what, sign-ins); the daily maintenance deletes older ones, except those a team's audit stream has not sent yet (kept 90 days more at most).",
  }),
});

export type AuditValues = ValuesOf<typeof auditSettings>;

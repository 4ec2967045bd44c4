import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { teams } from "./tenancy";

/**
 * Who changed what, append-only: one row per change, written in the change's own transaction
 * (src/server/audit). A team's rows go with the team; instance rows (sign-ins, a team's deletion, the
 * command line's instance work) have no team. Ids of users, projects and targets are kept as text
 * without references, so an entry outlives what it names; the labels say what it was called then.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    /** Increasing: the order entries are shown in and the pages' keyset. */
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    teamId: uuid("team_id").references(() => teams.id, { onDelete: "cascade" }),
    projectId: uuid("project_id"),
    /** `user`, `cli` (the command line), `system` (the server itself) or `anonymous` (a wrong password). */
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    /** The user's e-mail when it happened, `command line`, or the server's part. */
    actorLabel: text("actor_label").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    targetLabel: text("target_label").notNull(),
    /** Before → after of each field that changed, secrets redacted (src/server/audit/changes.ts). */
    changes: jsonb("changes").$type<Record<string, { from: unknown; to: unknown }>>(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // A scope's entries newest first, within days: every page and export walks it (audit-log.ts).
    index("audit_log_team_created_id_idx").on(t.teamId, t.createdAt, t.id),
    index("audit_log_created_at_idx").on(t.createdAt),
    // A team's entries in id order: the audit stream's batches and what it has left to send.
    index("audit_log_team_id_idx").on(t.teamId, t.id),
    // The action filter, and the latest entry of one action (the registration policy at start).
    index("audit_log_action_idx").on(t.action, t.id.desc()),
  ],
);

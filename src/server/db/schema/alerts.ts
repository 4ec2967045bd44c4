import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { projects, teams } from "./tenancy";

/**
 * What a team is alerted about; a team without a row has the defaults (alerts/settings.ts). A null
 * threshold turns its alert off.
 */
export const teamAlertSettings = pgTable("team_alert_settings", {
  teamId: uuid("team_id")
    .primaryKey()
    .references(() => teams.id, { onDelete: "cascade" }),
  /** A key has made this share (percent) of its transforms per day. */
  keyDayLimitPercent: integer("key_day_limit_percent"),
  /** A project's failed requests over 15 minutes reach this share (percent) of its requests. */
  errorRatePercent: integer("error_rate_percent"),
  keyExpiry: boolean("key_expiry").notNull(),
  bucketCredentials: boolean("bucket_credentials").notNull(),
  /** Mail the team's admins (when SMTP is configured); the dashboard's banner shows alerts either way. */
  mailAdmins: boolean("mail_admins").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * An alert's condition seen in one of its windows (the UTC day, hour, or the key's expiry): one row per
 * team, kind, subject and window, so at most one mail each. `lastSeenAt` moves while the condition holds;
 * the banner shows the rows not resolved since.
 */
export const alertEvents = pgTable(
  "alert_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    teamId: uuid("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    projectId: uuid("project_id").references(() => projects.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    /** The key, project or bucket the alert is about. */
    subjectId: text("subject_id").notNull(),
    window: text("window").notNull(),
    message: text("message").notNull(),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true }).notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull(),
    /** Set by the first check that no longer sees it; cleared if it holds again in the same window. */
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    /** Set when a check claims the mail (before sending: never twice); cleared again if the send failed. */
    mailedAt: timestamp("mailed_at", { withTimezone: true }),
    mailError: text("mail_error"),
  },
  (t) => [
    uniqueIndex("alert_events_once").on(t.teamId, t.kind, t.subjectId, t.window),
    index("alert_events_team_seen_idx").on(t.teamId, t.lastSeenAt),
    // Each check resolves what it did not see among the open ones: a few rows, whatever the history.
    index("alert_events_open_idx")
      .on(t.lastSeenAt)
      .where(sql`${t.resolvedAt} is null`),
  ],
);

/**
 * Requests and failures per project and minute, for the error-rate alert's 15 minutes (request_stats
 * is hourly). Written with the request statistics' batch; the alert check deletes rows past two hours.
 */
export const requestMinuteStats = pgTable(
  "request_minute_stats",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    minute: timestamp("minute", { withTimezone: true }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull(),
    failed: bigint("failed", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.minute] }), index("request_minute_stats_minute_idx").on(t.minute)],
);

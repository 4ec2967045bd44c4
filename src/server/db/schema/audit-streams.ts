import { bigint, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { teams } from "./tenancy";
import { teamWebhooks } from "./webhooks";

/**
 * A team's audit log streamed out as NDJSON, one batch at a time in entry order: posted to one of the
 * team's webhooks, or written to the bucket. `cursor` is the last entry sent; an admin may move it
 * back (send again) or forward (skip). Entries after it are never pruned by the retention.
 */
export const auditStreams = pgTable(
  "audit_streams",
  {
    teamId: uuid("team_id")
      .primaryKey()
      .references(() => teams.id, { onDelete: "cascade" }),
    /** `webhook` or `bucket`. */
    destination: text("destination").notNull(),
    /** The webhook posted to; null once it is deleted (the stream waits for another). */
    webhookId: uuid("webhook_id").references(() => teamWebhooks.id, { onDelete: "set null" }),
    /** The id of the last audit entry sent; the next batch is the team's entries after it. */
    cursor: bigint("cursor", { mode: "number" }).notNull(),
    /** Moved by every change an admin makes (destination, cursor): a sender's turn writes nothing over one. */
    generation: integer("generation").notNull().default(0),
    /** Batches that failed in a row (the backoff); 0 once one is sent. */
    failures: integer("failures").notNull().default(0),
    /** When a sender may take it next (now, or after a failure's backoff). */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** While a sender holds it, until when: a sender that died is replaced then. */
    leasedUntil: timestamp("leased_until", { withTimezone: true }),
    lastSentAt: timestamp("last_sent_at", { withTimezone: true }),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("audit_streams_due_idx").on(t.nextAttemptAt)],
);

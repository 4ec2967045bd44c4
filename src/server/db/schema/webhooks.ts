import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { teams } from "./tenancy";

/**
 * A team's webhook: where alerts and chosen audit actions are posted. The address (a Slack URL is its
 * own password) and the signing secret are sealed at rest, bound to the row; `urlShown` is the part
 * the console shows.
 */
export const teamWebhooks = pgTable(
  "team_webhooks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    teamId: uuid("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    sealedUrl: text("sealed_url").notNull(),
    urlShown: text("url_shown").notNull(),
    /** `standard` (Standard Webhooks JSON) or `slack` ({ text }). */
    format: text("format").notNull(),
    /** `alert.<kind>` and `audit.<action>` names it is sent. */
    events: text("events").array().notNull(),
    sealedSecret: text("sealed_secret").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("team_webhooks_team_idx").on(t.teamId)],
);

/**
 * One event for one webhook, and how its sending went: `pending` until a 2xx answer (`delivered`) or
 * the last retry (`failed`), `sending` while a sender holds it. `eventKey` makes an event enqueued
 * twice (two alert checks, two instances) one delivery; the payload is what was true when it happened.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    webhookId: uuid("webhook_id")
      .notNull()
      .references(() => teamWebhooks.id, { onDelete: "cascade" }),
    teamId: uuid("team_id").notNull(),
    /** `audit:<id>`, `alert:<id>` or `test:<uuid>`: the message id receivers see (`webhook-id`). */
    eventKey: text("event_key").notNull(),
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** When a sender may take it next; while `sending`, the lease's end: a sender that died is replaced then. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    responseStatus: integer("response_status"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_idx").on(t.webhookId, t.eventKey),
    index("webhook_deliveries_log_idx").on(t.webhookId, t.id.desc()),
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('pending', 'sending')`),
    index("webhook_deliveries_created_idx").on(t.createdAt),
  ],
);

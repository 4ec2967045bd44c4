import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uuid, type AnyPgColumn } from "drizzle-orm/pg-core";
import type { KeyPolicy } from "@/lib/schemas/key-policy";
import type { SpendCap, SpendCapName } from "@/lib/schemas/spend-cap";
import { user } from "./auth";
import { projects } from "./tenancy";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** `pk_` + 22 base64url characters; what image URLs carry. */
    publicKey: text("public_key").notNull().unique(),
    /**
     * The `sk_` secret sealed with AES-256-GCM under a key derived (HKDF) from the master secret.
     * Format `v{n}.{iv}.{ciphertext}.{tag}`: the version names the master that sealed it, so the
     * master can be rotated by re-sealing rows whose version is old.
     */
    encryptedSecret: text("encrypted_secret").notNull(),
    createdBy: text("created_by").references(() => user.id, { onDelete: "set null" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** Set by the daily sweep once expiresAt has passed and the key's cached config was dropped. */
    expiredAt: timestamp("expired_at", { withTimezone: true }),
    /** Set on the old key when it is rotated; it keeps verifying until its expiresAt (the grace period). */
    replacedById: uuid("replaced_by_id").references((): AnyPgColumn => apiKeys.id, { onDelete: "set null" }),
    /** Null means the default (60 per minute, 10,000 per day). */
    rateLimitPerMinute: integer("rate_limit_per_minute"),
    rateLimitPerDay: integer("rate_limit_per_day"),
    /** What the key may sign beyond its project's rules (operations, presets, expiry, referers); null: all the project allows. */
    policy: jsonb("policy").$type<KeyPolicy>(),
    /** How much the key may spend per UTC day and month; null: no cap. */
    spendCap: jsonb("spend_cap").$type<SpendCap>(),
    /**
     * The cap the key reached and when its period ends, set by the cap check after a usage flush
     * (spend-caps/enforce-caps.ts) and cleared when the cap is changed: until then its new transforms
     * are refused.
     */
    capReached: text("cap_reached").$type<SpendCapName>(),
    capReachedUntil: timestamp("cap_reached_until", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("api_keys_project_idx").on(t.projectId),
    // The cap check reads capped keys alone, every minute.
    index("api_keys_capped_idx")
      .on(t.id)
      .where(sql`${t.spendCap} is not null`),
  ],
);

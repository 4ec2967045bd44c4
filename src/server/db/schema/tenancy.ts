import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { user } from "./auth";

export const teamRole = pgEnum("team_role", ["owner", "admin", "member"]);

export const teams = pgTable("teams", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  /** Globally unique; appears in dashboard URLs. */
  slug: text("slug").notNull().unique(),
  /** A personal team made at sign-up keeps this until onboarding has chosen its name and slug. */
  pendingOnboarding: boolean("pending_onboarding").notNull().default(false),
  /** Members without a second factor are kept out of the team's pages and procedures until they add one. */
  requireSecondFactor: boolean("require_second_factor").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const teamMembers = pgTable(
  "team_members",
  {
    teamId: uuid("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    role: teamRole("role").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index("team_members_user_idx").on(t.userId)],
);

export const teamInvitations = pgTable(
  "team_invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    teamId: uuid("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: teamRole("role").notNull(),
    /** SHA-256 of the invitation token: the link holds the token, the database never does. */
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: text("invited_by").references(() => user.id, { onDelete: "set null" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("team_invitations_team_idx").on(t.teamId)],
);

export const projects = pgTable(
  "projects",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    teamId: uuid("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Unique per team only: the image route finds the project through the API key. */
    slug: text("slug").notNull(),
    /** Normalised host entries (contract §5); empty refuses every remote source. */
    allowedSourceHosts: text("allowed_source_hosts")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Referer host entries; empty means any referer (or none). */
    allowedRefererHosts: text("allowed_referer_hosts")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    lastActivityAt: timestamp("last_activity_at", { withTimezone: true }),
    /** Taken by every purge, one more each time (cache.ts). */
    cacheGeneration: integer("cache_generation").notNull().default(0),
    /** The generation of the last whole-project purge: every result made before it is unreachable. */
    cacheBase: integer("cache_base").notNull().default(0),
    cachePurgedAt: timestamp("cache_purged_at", { withTimezone: true }),
    /** Refuse every URL but a single preset token (presets.ts): caps what integrators' URLs can make. */
    presetsOnly: boolean("presets_only").notNull().default(false),
    /** q_auto's level for URLs that name no quality (default-quality.ts); null keeps the formats' defaults. */
    defaultQuality: text("default_quality", { enum: ["best", "good", "eco", "low"] }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("projects_team_slug_idx").on(t.teamId, t.slug)],
);

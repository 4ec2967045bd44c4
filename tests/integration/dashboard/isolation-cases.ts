import { EXAMPLE_BUCKET } from "../../support/buckets";
import type { TestUser } from "../../support/dashboard";
import type { TenantWorld } from "../../support/tenant-world";

type Caller = TestUser["caller"];
/** The slugs name the path; the ids may come from another team (cross-resource attempts). */
export type Target = Pick<
  TenantWorld,
  | "teamSlug"
  | "projectSlug"
  | "keyId"
  | "invitationId"
  | "invitationToken"
  | "memberUserId"
  | "webhookId"
  | "deliveryId"
>;

export interface IsolationCase {
  /**
   * account: scoped by the session alone (nothing of another team is addressable).
   * token: the invitation token is the capability, bound to the invited email.
   * team / project: the path names the tenant; membership and role come from the session.
   */
  scope: "account" | "token" | "team" | "project";
  /** Takes an id of a resource inside the path's tenant: tried with another team's id too. */
  takesResourceId?: boolean;
  call(caller: Caller, target: Target): Promise<unknown>;
}

/** A valid 1×1 PNG: the upload would succeed for a member with the right. */
const ONE_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

const team = (t: Target) => ({ teamSlug: t.teamSlug });
const project = (t: Target) => ({ teamSlug: t.teamSlug, projectSlug: t.projectSlug });

/** Every procedure of the app router, with the call the isolation suite attempts. */
export const isolationCases: Record<string, IsolationCase> = {
  "account.me": { scope: "account", call: (c) => c.account.me() },
  "account.security": { scope: "account", call: (c) => c.account.security() },
  "account.slugAvailable": { scope: "account", call: (c) => c.account.slugAvailable({ slug: "free-slug" }) },
  "account.completeOnboarding": {
    scope: "account",
    call: (c) => c.account.completeOnboarding({ name: "Mine", slug: `mine-${Date.now()}` }),
  },
  "account.createTeam": {
    scope: "account",
    call: (c) => c.account.createTeam({ name: "Another", slug: `another-${Date.now()}` }),
  },
  "account.invitation": { scope: "token", call: (c, t) => c.account.invitation({ token: t.invitationToken }) },
  "account.signInProviders": { scope: "account", call: (c) => c.account.signInProviders() },
  // The invited address is shown to whoever holds the link, as on the sign-up page itself.
  "account.signUpOffer": {
    scope: "token",
    call: (c, t) => c.account.signUpOffer({ invitation: t.invitationToken }),
  },
  "account.acceptInvitation": {
    scope: "token",
    call: (c, t) => c.account.acceptInvitation({ token: t.invitationToken }),
  },
  "account.declineInvitation": {
    scope: "token",
    call: (c, t) => c.account.declineInvitation({ token: t.invitationToken }),
  },

  "team.get": { scope: "team", call: (c, t) => c.team.get(team(t)) },
  "team.update": { scope: "team", call: (c, t) => c.team.update({ ...team(t), name: "Taken over" }) },
  "team.delete": { scope: "team", call: (c, t) => c.team.delete({ ...team(t), confirmSlug: t.teamSlug }) },
  "team.members": { scope: "team", call: (c, t) => c.team.members(team(t)) },
  "team.changeRole": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.team.changeRole({ ...team(t), userId: t.memberUserId, role: "admin" }),
  },
  "team.removeMember": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.team.removeMember({ ...team(t), userId: t.memberUserId }),
  },
  "team.leave": { scope: "team", call: (c, t) => c.team.leave(team(t)) },
  "team.invitations": { scope: "team", call: (c, t) => c.team.invitations(team(t)) },
  "team.invite": {
    scope: "team",
    call: (c, t) => c.team.invite({ ...team(t), email: "intruder@example.com", role: "owner" }),
  },
  "team.revokeInvitation": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.team.revokeInvitation({ ...team(t), invitationId: t.invitationId }),
  },

  "project.list": { scope: "team", call: (c, t) => c.project.list({ ...team(t), search: "" }) },
  "project.create": {
    scope: "team",
    call: (c, t) => c.project.create({ ...team(t), name: "Intruder", slug: "intruder" }),
  },
  "project.get": { scope: "project", call: (c, t) => c.project.get(project(t)) },
  "project.update": {
    scope: "project",
    call: (c, t) => c.project.update({ ...project(t), name: "Taken over", allowedSourceHosts: ["*"] }),
  },
  "project.delete": {
    scope: "project",
    call: (c, t) => c.project.delete({ ...project(t), confirmSlug: t.projectSlug }),
  },

  "apiKey.list": { scope: "project", call: (c, t) => c.apiKey.list(project(t)) },
  "apiKey.create": {
    scope: "project",
    call: (c, t) => c.apiKey.create({ ...project(t), name: "intruder", expiresAt: null }),
  },
  "apiKey.update": {
    scope: "project",
    takesResourceId: true,
    call: (c, t) => c.apiKey.update({ ...project(t), keyId: t.keyId, rateLimitPerMinute: 100_000 }),
  },
  "apiKey.policyImpact": {
    scope: "project",
    takesResourceId: true,
    call: (c, t) =>
      c.apiKey.policyImpact({
        ...project(t),
        keyId: t.keyId,
        policy: { operations: ["pr"], presets: null, maxExpirySeconds: null, referers: [] },
      }),
  },
  "apiKey.rotate": {
    scope: "project",
    takesResourceId: true,
    call: (c, t) => c.apiKey.rotate({ ...project(t), keyId: t.keyId, graceSeconds: 0 }),
  },
  "apiKey.revoke": {
    scope: "project",
    takesResourceId: true,
    call: (c, t) => c.apiKey.revoke({ ...project(t), keyId: t.keyId }),
  },

  "developer.signUrl": {
    scope: "project",
    takesResourceId: true,
    call: (c, t) =>
      c.developer.signUrl({
        ...project(t),
        keyId: t.keyId,
        operations: "w_10",
        source: "local/photo.jpg",
        expiresInSeconds: null,
      }),
  },

  "cache.status": { scope: "project", call: (c, t) => c.cache.status(project(t)) },
  "cache.purge": { scope: "project", call: (c, t) => c.cache.purge({ ...project(t), source: "local/photo.jpg" }) },

  "preset.list": { scope: "project", call: (c, t) => c.preset.list(project(t)) },
  "preset.save": {
    scope: "project",
    call: (c, t) => c.preset.save({ ...project(t), name: "hero", operations: "w_10" }),
  },
  "preset.preview": {
    scope: "project",
    call: (c, t) => c.preset.preview({ ...project(t), operations: "w_10" }),
  },
  "preset.delete": { scope: "project", call: (c, t) => c.preset.delete({ ...project(t), name: "hero" }) },
  "preset.presetsOnlyImpact": { scope: "project", call: (c, t) => c.preset.presetsOnlyImpact(project(t)) },
  "preset.setPresetsOnly": {
    scope: "project",
    call: (c, t) => c.preset.setPresetsOnly({ ...project(t), presetsOnly: true }),
  },
  "preset.setDefaultQuality": {
    scope: "project",
    call: (c, t) => c.preset.setDefaultQuality({ ...project(t), defaultQuality: "eco" }),
  },

  "projectImage.get": { scope: "project", call: (c, t) => c.projectImage.get(project(t)) },
  "projectImage.upload": {
    scope: "project",
    call: (c, t) => c.projectImage.upload({ ...project(t), kind: "watermark", base64: ONE_PIXEL_PNG }),
  },
  "projectImage.setWatermark": {
    scope: "project",
    call: (c, t) =>
      c.projectImage.setWatermark({ ...project(t), opacity: 1, gravity: "center", x: 0, y: 0, scale: 0, always: true }),
  },
  "projectImage.delete": {
    scope: "project",
    call: (c, t) => c.projectImage.delete({ ...project(t), kind: "fallback" }),
  },

  "sourceBucket.list": { scope: "project", call: (c, t) => c.sourceBucket.list(project(t)) },
  "sourceBucket.save": { scope: "project", call: (c, t) => c.sourceBucket.save({ ...project(t), ...EXAMPLE_BUCKET }) },
  "sourceBucket.delete": { scope: "project", call: (c, t) => c.sourceBucket.delete({ ...project(t), alias: "media" }) },

  "usage.project": { scope: "project", call: (c, t) => c.usage.project({ ...project(t), range: { preset: "90d" } }) },
  "usage.requestLog": {
    scope: "project",
    call: (c, t) => c.usage.requestLog({ ...project(t), range: { preset: "90d" } }),
  },
  "usage.team": { scope: "team", call: (c, t) => c.usage.team({ ...team(t), range: { preset: "30d" } }) },

  "audit.list": { scope: "team", call: (c, t) => c.audit.list({ ...team(t) }) },
  "audit.actors": { scope: "team", call: (c, t) => c.audit.actors(team(t)) },
  "alerts.current": { scope: "team", call: (c, t) => c.alerts.current(team(t)) },
  "alerts.settings": { scope: "team", call: (c, t) => c.alerts.settings(team(t)) },
  "alerts.saveSettings": {
    scope: "team",
    call: (c, t) =>
      c.alerts.saveSettings({
        ...team(t),
        keyDayLimitPercent: 70,
        errorRatePercent: 20,
        keyExpiry: true,
        bucketCredentials: true,
        mailAdmins: false,
      }),
  },
  "webhooks.list": { scope: "team", call: (c, t) => c.webhooks.list(team(t)) },
  "webhooks.create": {
    scope: "team",
    call: (c, t) =>
      c.webhooks.create({
        ...team(t),
        url: "https://intruder.example/hook",
        format: "slack",
        events: ["alert.errorRate"],
      }),
  },
  "webhooks.update": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) =>
      c.webhooks.update({
        ...team(t),
        webhookId: t.webhookId,
        url: "https://intruder.example/hook",
        format: "standard",
        events: ["audit.member.removed"],
      }),
  },
  "webhooks.delete": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.webhooks.delete({ ...team(t), webhookId: t.webhookId }),
  },
  "webhooks.rotateSecret": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.webhooks.rotateSecret({ ...team(t), webhookId: t.webhookId }),
  },
  "webhooks.deliveries": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.webhooks.deliveries({ ...team(t), webhookId: t.webhookId }),
  },
  "webhooks.sendTest": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.webhooks.sendTest({ ...team(t), webhookId: t.webhookId }),
  },
  "webhooks.redeliver": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.webhooks.redeliver({ ...team(t), deliveryId: t.deliveryId }),
  },
  "auditStream.status": { scope: "team", call: (c, t) => c.auditStream.status(team(t)) },
  "auditStream.configure": {
    scope: "team",
    takesResourceId: true,
    call: (c, t) => c.auditStream.configure({ ...team(t), destination: "webhook", webhookId: t.webhookId }),
  },
  "auditStream.reset": { scope: "team", call: (c, t) => c.auditStream.reset({ ...team(t), to: "oldest" }) },
  "auditStream.remove": { scope: "team", call: (c, t) => c.auditStream.remove(team(t)) },
  // The instance's log: its owner's alone (audit-log.test.ts), nothing of a team's.
  "audit.instanceList": { scope: "account", call: (c) => c.audit.instanceList({}) },
  "audit.instanceActors": { scope: "account", call: (c) => c.audit.instanceActors() },
};

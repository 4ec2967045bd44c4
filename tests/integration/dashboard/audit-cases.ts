import type { AuditAction } from "@/lib/audit-actions";
import { EXAMPLE_BUCKET } from "../../support/buckets";
import { signUp, type TestUser } from "../../support/dashboard";
import { tokenOf, type TenantWorld } from "../../support/tenant-world";
import type { Services } from "@/server/services";

/** A 1×1 PNG. */
const ONE_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export interface AuditCase {
  /** The one entry the call writes. */
  action: AuditAction;
  /** Who calls (default: the team's owner); prepare runs first and writes what it writes. */
  by?: (w: AuditWorld) => TestUser;
  prepare?: (w: AuditWorld) => Promise<void>;
  call(w: AuditWorld): Promise<unknown>;
}

export interface AuditWorld extends TenantWorld {
  services: Services;
  newcomer?: TestUser;
  newcomerToken?: string;
  decliner?: TestUser;
  declinerToken?: string;
  keyIds: string[];
}

const team = (w: AuditWorld) => ({ teamSlug: w.teamSlug });
const project = (w: AuditWorld) => ({ teamSlug: w.teamSlug, projectSlug: w.projectSlug });

/** Changes nothing: the sample photo made with the operations typed in the preset editor. */
export const NOT_AUDITED = {
  "preset.preview": "makes a picture and changes nothing",
  // Both send a delivery, kept in the webhook's log, and change no setting.
  "webhooks.sendTest": "sends a test delivery",
  "webhooks.redeliver": "sends a delivery again",
} as const;

/**
 * Every mutation of the app router, in an order one world can run them in (destructive ones last),
 * with the entry each must write. The test fails when a mutation is missing here.
 */
export const auditCases: Record<string, AuditCase> = {
  "account.createTeam": {
    action: "team.created",
    call: (w) => w.owner.caller.account.createTeam({ name: "Second", slug: `second-${Date.now()}` }),
  },
  "account.completeOnboarding": {
    action: "team.updated",
    prepare: async (w) => {
      w.newcomer = await signUp(w.services, "newcomer");
    },
    by: (w) => w.newcomer!,
    call: (w) => w.newcomer!.caller.account.completeOnboarding({ name: "New", slug: `new-${Date.now()}` }),
  },
  "team.invite": {
    action: "invitation.created",
    call: async (w) => {
      const invitation = await w.owner.caller.team.invite({ ...team(w), email: w.newcomer!.email, role: "member" });
      w.newcomerToken = tokenOf(invitation.link);
    },
  },
  "account.acceptInvitation": {
    action: "member.joined",
    by: (w) => w.newcomer!,
    call: (w) => w.newcomer!.caller.account.acceptInvitation({ token: w.newcomerToken! }),
  },
  "account.declineInvitation": {
    action: "invitation.declined",
    prepare: async (w) => {
      w.decliner = await signUp(w.services, "decliner");
      const invitation = await w.owner.caller.team.invite({ ...team(w), email: w.decliner.email, role: "member" });
      w.declinerToken = tokenOf(invitation.link);
    },
    by: (w) => w.decliner!,
    call: (w) => w.decliner!.caller.account.declineInvitation({ token: w.declinerToken! }),
  },
  "team.revokeInvitation": {
    action: "invitation.revoked",
    call: (w) => w.owner.caller.team.revokeInvitation({ ...team(w), invitationId: w.invitationId }),
  },
  "team.update": { action: "team.updated", call: (w) => w.owner.caller.team.update({ ...team(w), name: "Renamed" }) },
  "alerts.saveSettings": {
    action: "alerts.updated",
    call: (w) =>
      w.owner.caller.alerts.saveSettings({
        ...team(w),
        keyDayLimitPercent: 90,
        errorRatePercent: null,
        keyExpiry: true,
        bucketCredentials: false,
        mailAdmins: true,
      }),
  },
  // Before the webhook cases below: the world's webhook is still the signed JSON one it was made as.
  "auditStream.configure": {
    action: "audit_stream.configured",
    call: (w) => w.owner.caller.auditStream.configure({ ...team(w), destination: "webhook", webhookId: w.webhookId }),
  },
  "auditStream.reset": {
    action: "audit_stream.cursor_reset",
    call: (w) => w.owner.caller.auditStream.reset({ ...team(w), to: "oldest" }),
  },
  "auditStream.remove": { action: "audit_stream.removed", call: (w) => w.owner.caller.auditStream.remove(team(w)) },
  "webhooks.create": {
    action: "webhook.created",
    call: (w) =>
      w.owner.caller.webhooks.create({
        ...team(w),
        url: "https://audited.receiver.example/hook",
        format: "slack",
        events: ["alert.keyExpiry"],
      }),
  },
  "webhooks.update": {
    action: "webhook.updated",
    call: (w) =>
      w.owner.caller.webhooks.update({
        ...team(w),
        webhookId: w.webhookId,
        format: "slack",
        events: ["alert.errorRate", "audit.api_key.created"],
      }),
  },
  "webhooks.rotateSecret": {
    action: "webhook.secret_rotated",
    call: (w) => w.owner.caller.webhooks.rotateSecret({ ...team(w), webhookId: w.webhookId }),
  },
  "webhooks.delete": {
    action: "webhook.deleted",
    call: (w) => w.owner.caller.webhooks.delete({ ...team(w), webhookId: w.webhookId }),
  },
  "team.changeRole": {
    action: "member.role_changed",
    call: (w) => w.owner.caller.team.changeRole({ ...team(w), userId: w.member.id, role: "admin" }),
  },
  "project.create": {
    action: "project.created",
    call: (w) => w.owner.caller.project.create({ ...team(w), name: "Other", slug: "other" }),
  },
  "project.update": {
    action: "project.updated",
    call: (w) => w.owner.caller.project.update({ ...project(w), allowedSourceHosts: ["local", "cdn.example.com"] }),
  },
  "apiKey.create": {
    action: "api_key.created",
    call: async (w) =>
      w.keyIds.push((await w.owner.caller.apiKey.create({ ...project(w), name: "ci", expiresAt: null })).id),
  },
  "apiKey.update": {
    action: "api_key.updated",
    call: (w) => w.owner.caller.apiKey.update({ ...project(w), keyId: w.keyIds[0]!, rateLimitPerMinute: 100 }),
  },
  "apiKey.rotate": {
    action: "api_key.rotated",
    call: (w) => w.owner.caller.apiKey.rotate({ ...project(w), keyId: w.keyIds[0]!, graceSeconds: 60 }),
  },
  "apiKey.revoke": {
    action: "api_key.revoked",
    call: (w) => w.owner.caller.apiKey.revoke({ ...project(w), keyId: w.keyIds[0]! }),
  },
  "developer.signUrl": {
    action: "api_key.url_signed",
    by: (w) => w.member,
    call: (w) =>
      w.member.caller.developer.signUrl({
        ...project(w),
        keyId: w.keyId,
        operations: "w_10",
        source: "local/photo.jpg",
        expiresInSeconds: 600,
      }),
  },
  "cache.purge": {
    action: "cache.purged",
    call: (w) => w.owner.caller.cache.purge({ ...project(w), source: "local/photo.jpg" }),
  },
  "preset.save": {
    action: "preset.saved",
    call: (w) => w.owner.caller.preset.save({ ...project(w), name: "hero", operations: "w_10" }),
  },
  "preset.delete": {
    action: "preset.deleted",
    call: (w) => w.owner.caller.preset.delete({ ...project(w), name: "hero" }),
  },
  "preset.setPresetsOnly": {
    action: "project.updated",
    call: (w) => w.owner.caller.preset.setPresetsOnly({ ...project(w), presetsOnly: true }),
  },
  "preset.setDefaultQuality": {
    action: "project.updated",
    call: (w) => w.owner.caller.preset.setDefaultQuality({ ...project(w), defaultQuality: "eco" }),
  },
  "projectImage.upload": {
    action: "image.uploaded",
    call: (w) => w.owner.caller.projectImage.upload({ ...project(w), kind: "watermark", base64: ONE_PIXEL_PNG }),
  },
  "projectImage.setWatermark": {
    action: "image.watermark_changed",
    call: (w) =>
      w.owner.caller.projectImage.setWatermark({
        ...project(w),
        opacity: 0.5,
        gravity: "center",
        x: 0,
        y: 0,
        scale: 0.2,
        always: true,
      }),
  },
  "projectImage.delete": {
    action: "image.deleted",
    call: (w) => w.owner.caller.projectImage.delete({ ...project(w), kind: "watermark" }),
  },
  "sourceBucket.save": {
    action: "bucket.saved",
    call: (w) => w.owner.caller.sourceBucket.save({ ...project(w), ...EXAMPLE_BUCKET }),
  },
  "sourceBucket.delete": {
    action: "bucket.deleted",
    call: (w) => w.owner.caller.sourceBucket.delete({ ...project(w), alias: EXAMPLE_BUCKET.alias }),
  },
  "team.removeMember": {
    action: "member.removed",
    call: (w) => w.owner.caller.team.removeMember({ ...team(w), userId: w.admin.id }),
  },
  "team.leave": { action: "member.left", by: (w) => w.member, call: (w) => w.member.caller.team.leave(team(w)) },
  "project.delete": {
    action: "project.deleted",
    call: (w) => w.owner.caller.project.delete({ ...project(w), confirmSlug: w.projectSlug }),
  },
  "team.delete": {
    action: "team.deleted",
    call: (w) => w.owner.caller.team.delete({ ...team(w), confirmSlug: w.teamSlug }),
  },
};

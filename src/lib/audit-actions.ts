/** What an entry's target is; the log's target filter names these. */
export const auditTargetTypes = [
  "team",
  "member",
  "invitation",
  "project",
  "api_key",
  "preset",
  "image",
  "bucket",
  "cache",
  "webhook",
  "account",
  "instance",
] as const;
export type AuditTargetType = (typeof auditTargetTypes)[number];

/**
 * Every action the audit log records, with its target's type and how the log says it. Instance actions
 * are written without a team and shown to the instance's owner only.
 */
export const auditActions = {
  "team.created": { target: "team", says: "created the team" },
  "team.updated": { target: "team", says: "changed the team" },
  "team.deleted": { target: "team", says: "deleted the team", instance: true },
  "alerts.updated": { target: "team", says: "changed the team's alerts" },
  "member.joined": { target: "member", says: "joined through an invitation" },
  "member.role_changed": { target: "member", says: "changed a member's role" },
  "member.removed": { target: "member", says: "removed a member" },
  "member.left": { target: "member", says: "left the team" },
  "member.provisioned": { target: "member", says: "joined through single sign-on" },
  "member.adopted": { target: "member", says: "took over a team nobody belonged to" },
  "invitation.created": { target: "invitation", says: "invited someone" },
  "invitation.revoked": { target: "invitation", says: "revoked an invitation" },
  "invitation.declined": { target: "invitation", says: "declined an invitation" },
  "project.created": { target: "project", says: "created a project" },
  "project.updated": { target: "project", says: "changed a project's settings" },
  "project.deleted": { target: "project", says: "deleted a project" },
  "api_key.created": { target: "api_key", says: "created an API key" },
  "api_key.updated": { target: "api_key", says: "changed an API key" },
  "api_key.rotated": { target: "api_key", says: "rotated an API key" },
  "api_key.revoked": { target: "api_key", says: "revoked an API key" },
  "api_key.limits_reset": { target: "api_key", says: "reset an API key's rate-limit windows" },
  "api_key.cap_reached": { target: "api_key", says: "reached a spend cap" },
  "api_key.url_signed": { target: "api_key", says: "signed a URL with a key in the dashboard" },
  "preset.saved": { target: "preset", says: "saved a preset" },
  "preset.deleted": { target: "preset", says: "deleted a preset" },
  "image.uploaded": { target: "image", says: "uploaded a project image" },
  "image.deleted": { target: "image", says: "deleted a project image" },
  "image.watermark_changed": { target: "image", says: "changed the watermark's placement" },
  "bucket.saved": { target: "bucket", says: "saved a source bucket" },
  "bucket.deleted": { target: "bucket", says: "deleted a source bucket" },
  "cache.purged": { target: "cache", says: "purged cached results" },
  "webhook.created": { target: "webhook", says: "added a webhook" },
  "webhook.updated": { target: "webhook", says: "changed a webhook" },
  "webhook.deleted": { target: "webhook", says: "deleted a webhook" },
  "webhook.secret_rotated": { target: "webhook", says: "made a webhook's signing secret anew" },
  "account.signed_in": { target: "account", says: "signed in", instance: true },
  "account.sign_in_failed": { target: "account", says: "failed to sign in (wrong password)", instance: true },
  "account.second_factor_enabled": { target: "account", says: "turned on a second factor", instance: true },
  "account.second_factor_disabled": { target: "account", says: "turned off the second factor", instance: true },
  "account.recovery_codes_renewed": { target: "account", says: "made new recovery codes", instance: true },
  "account.passkey_added": { target: "account", says: "added a passkey", instance: true },
  "account.passkey_removed": { target: "account", says: "removed a passkey", instance: true },
  "account.created": { target: "account", says: "created an account", instance: true },
  "instance.secrets_resealed": { target: "instance", says: "resealed stored secrets", instance: true },
  "instance.migrated": { target: "instance", says: "migrated the database", instance: true },
  "instance.registration_changed": { target: "instance", says: "changed who may sign up", instance: true },
} as const satisfies Record<string, { target: AuditTargetType; says: string; instance?: true }>;

export type AuditAction = keyof typeof auditActions;
export const auditActionNames = Object.keys(auditActions) as [AuditAction, ...AuditAction[]];

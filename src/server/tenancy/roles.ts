import { teamRoles, type TeamRole } from "@/lib/schemas/team";
import { AppError } from "@/server/errors";

export { teamRoles, type TeamRole };

const rank: Record<TeamRole, number> = { member: 1, admin: 2, owner: 3 };

/**
 * Which role may do what: the least role each action needs. The procedure layer checks it before
 * any domain function runs; docs/dashboard.md renders the same table. A few rules depend on the
 * target as well (only owners touch owners, the last owner stays): those live in members.ts.
 */
export const permissions = {
  "team.read": "member",
  "team.update": "admin",
  "team.delete": "owner",
  "member.read": "member",
  "member.changeRole": "admin",
  "member.remove": "admin",
  "member.leave": "member",
  "invitation.read": "admin",
  "invitation.create": "admin",
  "invitation.revoke": "admin",
  "project.read": "member",
  "project.create": "admin",
  "project.update": "admin",
  "project.delete": "admin",
  // Every purged result is transformed again (cost, and load on the origins): an admin's act.
  "cache.purge": "admin",
  // A preset's edit changes what every URL using it makes, for every page that uses it.
  "preset.write": "admin",
  // The watermark and the fallback change what every URL of the project makes.
  "image.write": "admin",
  // A bucket's credentials read the tenant's private objects.
  "bucket.write": "admin",
  "apiKey.read": "member",
  "apiKey.create": "admin",
  "apiKey.update": "admin",
  "apiKey.rotate": "admin",
  "apiKey.revoke": "admin",
  "developer.sign": "member",
  // A URL without exp works forever, also after its signer has left the team: a deliberate admin act.
  "developer.signPermanent": "admin",
  "usage.read": "member",
  // Every day of every project in one file, for billing and reports: an admin's download.
  "usage.export": "admin",
  // Who did what, from where (addresses, user agents): the admins who answer for the team.
  "audit.read": "admin",
  // Alerts name keys, buckets and failures, and are mailed to the admins: theirs to see and set.
  "alerts.read": "admin",
  "alerts.write": "admin",
  // A webhook posts the team's audit actions and alerts to an address of the admins' choosing.
  "webhooks.read": "admin",
  "webhooks.write": "admin",
  // The whole log, actors' addresses included, leaves the building: as reading it, admins only.
  "auditStream.read": "admin",
  "auditStream.write": "admin",
} as const satisfies Record<string, TeamRole>;

export type Permission = keyof typeof permissions;

export function atLeast(role: TeamRole, least: TeamRole): boolean {
  return rank[role] >= rank[least];
}

export function can(role: TeamRole, permission: Permission): boolean {
  return atLeast(role, permissions[permission]);
}

export function assertCan(role: TeamRole, permission: Permission): void {
  if (!can(role, permission)) throw new AppError("NOT_PERMITTED", { detail: `${role} may not ${permission}` });
}

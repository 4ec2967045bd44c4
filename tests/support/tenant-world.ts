import { randomBytes } from "node:crypto";
import type { Services } from "@/server/services";
import { signUp, type TestUser } from "./dashboard";

/** One team with a user per role, a project, a key and a pending invitation, all made through procedures. */
export interface TenantWorld {
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  teamSlug: string;
  projectSlug: string;
  keyId: string;
  invitationId: string;
  invitationToken: string;
  memberUserId: string;
  webhookId: string;
  /** A delivery of that webhook (the key's creation, which it was chosen for). */
  deliveryId: number;
}

export async function buildTenantWorld(services: Services, label: string): Promise<TenantWorld> {
  const owner = await signUp(services, `${label}-owner`);
  const team = await owner.caller.account.completeOnboarding({
    name: `Team ${label}`,
    slug: `${label}-${randomBytes(3).toString("hex")}`,
  });
  const teamSlug = team.slug;
  const [admin, member] = [await signUp(services, `${label}-admin`), await signUp(services, `${label}-member`)];
  for (const [user, role] of [
    [admin, "admin"],
    [member, "member"],
  ] as const) {
    const invitation = await owner.caller.team.invite({ teamSlug, email: user.email, role });
    await user.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
  }
  await owner.caller.project.create({ teamSlug, name: "Site", slug: "site", allowedSourceHosts: ["local"] });
  // A receiver nobody answers for: nothing here sends to it (deliveries are sent by the alert check).
  const { webhook } = await owner.caller.webhooks.create({
    teamSlug,
    url: `https://${label}.receiver.example/hooks`,
    format: "standard",
    events: ["audit.api_key.created"],
  });
  const key = await owner.caller.apiKey.create({ teamSlug, projectSlug: "site", name: "production", expiresAt: null });
  const pending = await owner.caller.team.invite({ teamSlug, email: `pending-${label}@example.com`, role: "member" });
  return {
    owner,
    admin,
    member,
    teamSlug,
    projectSlug: "site",
    keyId: key.id,
    invitationId: pending.id,
    invitationToken: tokenOf(pending.link),
    memberUserId: member.id,
    webhookId: webhook.id,
    deliveryId: (await owner.caller.webhooks.deliveries({ teamSlug, webhookId: webhook.id }))[0]!.id,
  };
}

export const tokenOf = (link: string) => link.slice(link.lastIndexOf("/") + 1);

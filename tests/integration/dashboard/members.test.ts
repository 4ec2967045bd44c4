import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { startSmtpSink, type SmtpSink } from "../../support/smtp";
import { tokenOf } from "../../support/tenant-world";

let app: TestApp;
let smtp: SmtpSink;
let owner: TestUser;
let teamSlug: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await createTestApp({ env: { SMTP_URL: smtp.url, SMTP_FROM: "OptStuff <no-reply@optstuff.test>" } });
  owner = await signUp(app.services, "boss");
  teamSlug = (
    await owner.caller.account.completeOnboarding({ name: "Crew", slug: `crew-${owner.id.slice(0, 8).toLowerCase()}` })
  ).slug;
}, 30_000);
afterAll(async () => {
  await app.close();
  await smtp.close();
});

async function join(role: "owner" | "admin" | "member", label: string = role): Promise<TestUser> {
  const user = await signUp(app.services, label);
  const invitation = await owner.caller.team.invite({ teamSlug, email: user.email, role });
  await user.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
  return user;
}

describe("invitations", () => {
  it("mails the link when SMTP is configured, and the link lets exactly the invited address join", async () => {
    const invitee = await signUp(app.services, "invitee");
    const stranger = await signUp(app.services, "stranger");
    const invitation = await owner.caller.team.invite({ teamSlug, email: invitee.email.toUpperCase(), role: "member" });
    expect(invitation.emailed).toBe(true);
    expect(smtp.received.at(-1)).toContain(invitation.link);
    expect(smtp.received.at(-1)).toContain(`To: ${invitee.email}`);

    const token = tokenOf(invitation.link);
    expect(await stranger.caller.account.invitation({ token })).toMatchObject({
      status: "pending",
      role: "member",
      teamSlug,
    });
    await expect(stranger.caller.account.acceptInvitation({ token })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await invitee.caller.account.acceptInvitation({ token })).toEqual({ teamSlug });
    expect((await invitee.caller.account.me()).teams.map((t) => t.slug)).toContain(teamSlug);
    await expect(invitee.caller.account.acceptInvitation({ token })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "This invitation is no longer valid",
    });
  });

  it("refuses inviting a member twice, and a revoked link stops working", async () => {
    const member = await join("member", "twice");
    await expect(owner.caller.team.invite({ teamSlug, email: member.email, role: "admin" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    const late = await signUp(app.services, "late");
    const invitation = await owner.caller.team.invite({ teamSlug, email: late.email, role: "member" });
    expect((await owner.caller.team.invitations({ teamSlug })).map((i) => i.id)).toContain(invitation.id);
    await owner.caller.team.revokeInvitation({ teamSlug, invitationId: invitation.id });
    expect((await late.caller.account.invitation({ token: tokenOf(invitation.link) })).status).toBe("revoked");
    await expect(late.caller.account.acceptInvitation({ token: tokenOf(invitation.link) })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("refuses a malformed email address with a message", async () => {
    await expect(owner.caller.team.invite({ teamSlug, email: "not-an-email", role: "member" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Enter a valid email address",
    });
  });

  it("lets only an owner invite an owner", async () => {
    const admin = await join("admin", "inviter");
    await expect(admin.caller.team.invite({ teamSlug, email: "x@example.com", role: "owner" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect((await admin.caller.team.invite({ teamSlug, email: "y@example.com", role: "member" })).link).toContain(
      "/invite/",
    );
  });
});

describe("roles", () => {
  it("keeps the last owner: they can neither leave nor be demoted, until another owner exists", async () => {
    await expect(owner.caller.team.leave({ teamSlug })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(owner.caller.team.changeRole({ teamSlug, userId: owner.id, role: "admin" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    const second = await join("owner", "second");
    await second.caller.team.changeRole({ teamSlug, userId: owner.id, role: "admin" });
    await expect(second.caller.team.leave({ teamSlug })).rejects.toMatchObject({ code: "CONFLICT" });
    await second.caller.team.changeRole({ teamSlug, userId: owner.id, role: "owner" });
    await second.caller.team.leave({ teamSlug });
    await expect(second.caller.team.get({ teamSlug })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("two owners demoting each other at the same moment leave one owner", async () => {
    const other = await join("owner", "racer");
    const results = await Promise.allSettled([
      owner.caller.team.changeRole({ teamSlug, userId: other.id, role: "member" }),
      other.caller.team.changeRole({ teamSlug, userId: owner.id, role: "member" }),
    ]);
    const owners = (
      await owner.caller.team.members({ teamSlug }).catch(() => other.caller.team.members({ teamSlug }))
    ).filter((m) => m.role === "owner");
    expect(owners).toHaveLength(1);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    if (owners[0]!.userId !== owner.id)
      await other.caller.team.changeRole({ teamSlug, userId: owner.id, role: "owner" });
  });

  it("lets an admin manage members and admins but not owners", async () => {
    const admin = await join("admin", "manager");
    const member = await join("member", "worker");
    await admin.caller.team.changeRole({ teamSlug, userId: member.id, role: "admin" });
    await expect(admin.caller.team.changeRole({ teamSlug, userId: member.id, role: "owner" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(admin.caller.team.changeRole({ teamSlug, userId: owner.id, role: "member" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(admin.caller.team.removeMember({ teamSlug, userId: owner.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await admin.caller.team.removeMember({ teamSlug, userId: member.id });
    await expect(member.caller.team.get({ teamSlug })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lets a member leave", async () => {
    const member = await join("member", "leaver");
    await member.caller.team.leave({ teamSlug });
    expect((await member.caller.account.me()).teams.map((t) => t.slug)).not.toContain(teamSlug);
  });
});

describe("teams", () => {
  it("checks slug availability live and refuses a taken slug", async () => {
    expect(await owner.caller.account.slugAvailable({ slug: teamSlug })).toEqual({
      available: false,
      reason: "That slug is already taken",
    });
    expect((await owner.caller.account.slugAvailable({ slug: "Bad Slug" })).available).toBe(false);
    expect(await owner.caller.account.slugAvailable({ slug: "free-slug-123" })).toEqual({
      available: true,
      reason: null,
    });
    await expect(owner.caller.account.createTeam({ name: "Copy", slug: teamSlug })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("deletes a team only with its slug typed, and only by an owner", async () => {
    const created = await owner.caller.account.createTeam({
      name: "Doomed",
      slug: `doomed-${owner.id.slice(0, 6).toLowerCase()}`,
    });
    await expect(owner.caller.team.delete({ teamSlug: created.slug, confirmSlug: "nope" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await owner.caller.team.delete({ teamSlug: created.slug, confirmSlug: created.slug });
    await expect(owner.caller.team.get({ teamSlug: created.slug })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

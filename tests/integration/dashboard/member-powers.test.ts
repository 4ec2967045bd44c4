import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_TEST_URL_SECONDS } from "@/lib/schemas/developer";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { tokenOf } from "../../support/tenant-world";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * What a role's powers leave behind: signed URLs that outlive a membership, keys edited back to life,
 * invitations that outlive their inviter's role. Procedures against a real database and the real image
 * route, with the tenancy clock under the test's control.
 */
let clock = Date.now();
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
const projectSlug = "site";

beforeAll(async () => {
  app = await createTestApp({ seams: { now: () => new Date(clock) } });
  owner = await signUp(app.services, "powers");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Powers",
      slug: `powers-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Site", slug: projectSlug, allowedSourceHosts: ["local"] });
}, 30_000);
afterAll(() => app.close());

async function join(role: "owner" | "admin" | "member", label: string): Promise<TestUser> {
  const user = await signUp(app.services, label);
  const invitation = await owner.caller.team.invite({ teamSlug, email: user.email, role });
  await user.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
  return user;
}

const newKey = (name: string, expiresAt: Date | null = null) =>
  owner.caller.apiKey.create({ teamSlug, projectSlug, name, expiresAt });
const pathOf = (url: string) => url.slice(url.indexOf("/api/v1/"));

describe("the URL tester", () => {
  it("requires members to sign with an expiry of at most 7 days; admins and owners may sign permanent URLs", async () => {
    const key = await newKey("tester");
    const member = await join("member", "signer");
    const admin = await join("admin", "permanent");
    const sign = (user: TestUser, expiresInSeconds: number | null) =>
      user.caller.developer.signUrl({
        teamSlug,
        projectSlug,
        keyId: key.id,
        operations: "w_20,f_png",
        source: "local/photo.jpg",
        expiresInSeconds,
      });

    expect((await member.caller.team.get({ teamSlug })).can["developer.signPermanent"]).toBe(false);
    expect((await admin.caller.team.get({ teamSlug })).can["developer.signPermanent"]).toBe(true);

    await expect(sign(member, null)).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/expir/i),
    });
    await expect(sign(member, MAX_TEST_URL_SECONDS + 1)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const week = await sign(member, MAX_TEST_URL_SECONDS);
    expect(week.expiresAt!.getTime()).toBe(Math.floor(clock / 1000) * 1000 + MAX_TEST_URL_SECONDS * 1000);
    expect(new URL(week.url).searchParams.get("exp")).toBe(String(Math.floor(clock / 1000) + MAX_TEST_URL_SECONDS));
    expect((await app.fetch(pathOf(week.url))).status).toBe(200);

    for (const deliberate of [admin, owner]) {
      const permanent = await sign(deliberate, null);
      expect(permanent.expiresAt).toBeNull();
      expect(new URL(permanent.url).searchParams.has("exp")).toBe(false);
      expect((await app.fetch(pathOf(permanent.url))).status).toBe(200);
    }
    // A permanent URL whose source ends like an expiry would verify as an expiring one (contract §2):
    // refused as input, not a server error.
    await expect(
      admin.caller.developer.signUrl({
        teamSlug,
        projectSlug,
        keyId: key.id,
        operations: "w_20,f_png",
        source: "cdn.example.com/photo.jpg?exp=1",
        expiresInSeconds: null,
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/exp/) });
  });
});

describe("editing keys", () => {
  it("refuses to edit a rotating key, so its grace period cannot be stretched, and leaves its expiry alone", async () => {
    const old = await newKey("rotating");
    const rotated = await owner.caller.apiKey.rotate({ teamSlug, projectSlug, keyId: old.id, graceSeconds: 3600 });
    const far = new Date(clock + 365 * 86_400_000);
    await expect(
      owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: old.id, expiresAt: far }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/rotating/) });
    await expect(
      owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: old.id, expiresAt: null }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(
      owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: old.id, name: "renamed" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    const listed = (await owner.caller.apiKey.list({ teamSlug, projectSlug })).find((k) => k.id === old.id)!;
    expect([listed.status, listed.name, listed.expiresAt?.getTime()]).toEqual([
      "rotating",
      "rotating",
      rotated.oldKeyExpiresAt.getTime(),
    ]);
    // The successor is active and edits normally.
    expect(
      (await owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: rotated.id, name: "successor" })).name,
    ).toBe("successor");
  });

  it("refuses to edit an expired key back to life, and the image route keeps refusing it", async () => {
    const key = await newKey("short-lived", new Date(clock + 60_000));
    clock += 120_000; // the tenancy clock and the image route's clock alike
    try {
      await expect(
        owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: key.id, expiresAt: null }),
      ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/expired/) });
      await expect(
        owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: key.id, rateLimitPerMinute: 5 }),
      ).rejects.toMatchObject({ code: "CONFLICT" });
      expect((await owner.caller.apiKey.list({ teamSlug, projectSlug })).find((k) => k.id === key.id)!.status).toBe(
        "expired",
      );
      const url = buildSignedUrl({
        baseUrl: "http://x",
        projectSlug,
        ...key,
        operations: "w_20,f_png",
        source: "local/photo.jpg",
      });
      expect((await app.fetch(pathOf(url))).status).toBe(401);
    } finally {
      clock = Date.now();
    }
  });
});

describe("invitations and their inviter", () => {
  it("stops an invitation when its inviter is demoted below admin, and it never joins anyone", async () => {
    const admin = await join("admin", "demoted");
    const invitee = await signUp(app.services, "invitee");
    const invitation = await admin.caller.team.invite({ teamSlug, email: invitee.email, role: "member" });
    const token = tokenOf(invitation.link);
    await owner.caller.team.changeRole({ teamSlug, userId: admin.id, role: "member" });

    expect((await invitee.caller.account.invitation({ token })).status).toBe("revoked");
    expect((await owner.caller.team.invitations({ teamSlug })).map((i) => i.id)).not.toContain(invitation.id);
    await expect(invitee.caller.account.acceptInvitation({ token })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "This invitation is no longer valid",
    });
    expect((await invitee.caller.account.me()).teams.map((t) => t.slug)).not.toContain(teamSlug);
  });

  it("stops an invitation when its inviter leaves or is removed", async () => {
    for (const [label, end] of [
      ["removed", (user: TestUser) => owner.caller.team.removeMember({ teamSlug, userId: user.id })],
      ["leaver", (user: TestUser) => user.caller.team.leave({ teamSlug })],
    ] as const) {
      const admin = await join("admin", label);
      const invitee = await signUp(app.services, `${label}-invitee`);
      const invitation = await admin.caller.team.invite({ teamSlug, email: invitee.email, role: "member" });
      await end(admin);
      await expect(invitee.caller.account.acceptInvitation({ token: tokenOf(invitation.link) })).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    }
  });

  it("stops an owner invitation once its inviter is no longer an owner", async () => {
    const second = await join("owner", "co-owner");
    const invitee = await signUp(app.services, "future-owner");
    const invitation = await second.caller.team.invite({ teamSlug, email: invitee.email, role: "owner" });
    await owner.caller.team.changeRole({ teamSlug, userId: second.id, role: "admin" });
    await expect(invitee.caller.account.acceptInvitation({ token: tokenOf(invitation.link) })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    // Invitations the inviter could still make stay valid.
    const memberInvitee = await signUp(app.services, "still-fine");
    const stillValid = await second.caller.team.invite({ teamSlug, email: memberInvitee.email, role: "member" });
    expect(await memberInvitee.caller.account.acceptInvitation({ token: tokenOf(stillValid.link) })).toEqual({
      teamSlug,
    });
  });
});

describe("cache purge", () => {
  it("is for admins and owners: a member reads the cache page but cannot purge; bad input is a BAD_REQUEST naming it", async () => {
    const member = await join("member", "purge-member");
    const admin = await join("admin", "purge-admin");
    expect((await member.caller.team.get({ teamSlug })).can["cache.purge"]).toBe(false);
    expect((await member.caller.cache.status({ teamSlug, projectSlug })).purgedSources).toEqual([]);
    await expect(member.caller.cache.purge({ teamSlug, projectSlug, source: "local/photo.jpg" })).rejects.toMatchObject(
      { code: "FORBIDDEN" },
    );

    const purged = await admin.caller.cache.purge({ teamSlug, projectSlug, source: "local/photo.jpg" });
    expect(purged).toMatchObject({ source: "local/photo.jpg", widened: false });
    const status = await member.caller.cache.status({ teamSlug, projectSlug });
    expect(status.purgedSources.map((p) => p.source)).toEqual(["local/photo.jpg"]);
    expect(status.lastPurgedAt).not.toBeNull();

    await expect(
      admin.caller.cache.purge({ teamSlug, projectSlug, source: "javascript:alert(1)" }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("Not a source URL"),
    });
    await expect(admin.caller.cache.purge({ teamSlug, projectSlug, source: "  " })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });

    // A whole purge clears the list of single purges.
    expect((await admin.caller.cache.purge({ teamSlug, projectSlug })).source).toBeNull();
    expect((await member.caller.cache.status({ teamSlug, projectSlug })).purgedSources).toEqual([]);
  });
});

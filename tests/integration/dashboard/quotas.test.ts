import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createProject, findProject } from "@/server/tenancy/projects";
import { findTeamBySlug } from "@/server/tenancy/teams";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { signUp, type TestUser } from "../../support/dashboard";
import { tokenOf } from "../../support/tenant-world";
import { setupAudit } from "../../support/audit";

/**
 * What one account or team may hold (docs/security.md, dashboard): teams an account owns, projects a
 * team has, active keys a project has, and uploads a team makes in an hour. Refused at creation with
 * the limit named; deleting or revoking makes room. The command line goes through the same domain
 * functions (bootstrap, createApiKey), so it meets the same refusals (tests/integration/cli).
 */
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
}, 30_000);
afterAll(() => app.close());

const suffixOf = (user: TestUser) => user.id.slice(0, 8).toLowerCase();

async function onboarded(label: string): Promise<{ user: TestUser; teamSlug: string; teamId: string }> {
  const user = await signUp(app.services, label);
  const slug = `${label}-${suffixOf(user)}`;
  const team = await user.caller.account.completeOnboarding({ name: label, slug });
  return { user, teamSlug: team.slug, teamId: team.id };
}

describe("teams an account owns", () => {
  it("refuses the 21st, naming the limit, answers slug checks only for a team it may still make, and makes room when one is deleted", async () => {
    const user = await signUp(app.services, "founder");
    const suffix = suffixOf(user);
    // The personal team made at sign-up counts (and the demo team this first account adopted).
    const owned = (await user.caller.account.me()).teams.filter((team) => team.role === "owner").length;
    expect(owned).toBeGreaterThanOrEqual(1);
    const made: string[] = [];
    for (let i = owned + 1; i <= 20; i++)
      made.push((await user.caller.account.createTeam({ name: `Team ${i}`, slug: `t${i}-${suffix}` })).slug);

    await expect(user.caller.account.createTeam({ name: "One more", slug: `more-${suffix}` })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/at most 20 teams/) as unknown,
    });
    // Nothing to create, so nothing to tell about other teams' slugs…
    expect(await user.caller.account.slugAvailable({ slug: `more-${suffix}` })).toEqual({
      available: false,
      reason: expect.stringMatching(/at most 20 teams/) as unknown,
    });
    // …but renaming a team it administers still gets its answer.
    expect(await user.caller.account.slugAvailable({ slug: `more-${suffix}`, teamSlug: made[0]! })).toEqual({
      available: true,
      reason: null,
    });
    // The command line's bootstrap makes teams through the same function, for the same owner.
    const ownerFull = bootstrap(
      { ...app.services.dashboard.tenancy, audit: setupAudit },
      {
        teamSlug: `cli-${suffix}`,
        projectSlug: "site",
        keyName: "k",
        ownerId: user.id,
      },
    );
    await expect(ownerFull).rejects.toMatchObject({ code: "QUOTA_REACHED" });
    expect(await findTeamBySlug(app.services.dashboard.tenancy, `cli-${suffix}`)).toBeNull();

    await user.caller.team.delete({ teamSlug: made[0]!, confirmSlug: made[0]! });
    expect((await user.caller.account.createTeam({ name: "One more", slug: `more-${suffix}` })).slug).toBe(
      `more-${suffix}`,
    );
  }, 60_000);

  it("counts only the teams an account owns: being invited into others' teams does not use it up", async () => {
    const host = await onboarded("host");
    const guest = await signUp(app.services, "guest");
    const invitation = await host.user.caller.team.invite({
      teamSlug: host.teamSlug,
      email: guest.email,
      role: "admin",
    });
    await guest.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
    const created = await guest.caller.account.createTeam({ name: "Own", slug: `own-${suffixOf(guest)}` });
    expect(created.slug).toBe(`own-${suffixOf(guest)}`);
  });

  it("counts becoming an owner like making a team: a full account is not made owner, by role or by invitation", async () => {
    const full = await signUp(app.services, "full");
    const owned = (await full.caller.account.me()).teams.filter((team) => team.role === "owner").length;
    for (let i = owned + 1; i <= 20; i++)
      await full.caller.account.createTeam({ name: `Full ${i}`, slug: `f${i}-${suffixOf(full)}` });
    const host = await onboarded("giver");
    const asAdmin = await host.user.caller.team.invite({ teamSlug: host.teamSlug, email: full.email, role: "admin" });
    await full.caller.account.acceptInvitation({ token: tokenOf(asAdmin.link) });
    await expect(
      host.user.caller.team.changeRole({ teamSlug: host.teamSlug, userId: full.id, role: "owner" }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/at most 20 teams/) as unknown });

    const other = await onboarded("giver2");
    const asOwner = await other.user.caller.team.invite({ teamSlug: other.teamSlug, email: full.email, role: "owner" });
    await expect(full.caller.account.acceptInvitation({ token: tokenOf(asOwner.link) })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });
});

describe("projects a team has", () => {
  it("refuses the 51st, naming the limit, and makes room when one is deleted", async () => {
    const { user, teamSlug, teamId } = await onboarded("builder");
    const db = app.services.database.db;
    for (let i = 1; i <= 49; i++)
      await createProject({ db, audit: setupAudit }, { teamId, name: `P${i}`, slug: `p${i}` });
    await user.caller.project.create({ teamSlug, name: "Fiftieth", slug: "p50" });

    await expect(user.caller.project.create({ teamSlug, name: "Extra", slug: "extra" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/at most 50 projects/) as unknown,
    });
    expect(await findProject({ db }, teamId, "extra")).toBeNull();
    await user.caller.project.delete({ teamSlug, projectSlug: "p1", confirmSlug: "p1" });
    expect((await user.caller.project.create({ teamSlug, name: "Extra", slug: "extra" })).slug).toBe("extra");
  }, 60_000);
});

describe("creations at the same moment", () => {
  it("let only one of two creations take a team's last project place or a project's last key place", async () => {
    const { user, teamSlug, teamId } = await onboarded("racer");
    const db = app.services.database.db;
    for (let i = 1; i <= 49; i++)
      await createProject({ db, audit: setupAudit }, { teamId, name: `P${i}`, slug: `p${i}` });
    const projects = await Promise.allSettled([
      user.caller.project.create({ teamSlug, name: "A", slug: "first" }),
      user.caller.project.create({ teamSlug, name: "B", slug: "second" }),
    ]);
    expect(projects.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);

    const scope = { teamId, projectId: (await findProject({ db }, teamId, "p1"))!.id };
    for (let i = 1; i <= 49; i++)
      await createApiKey({ ...app.services.dashboard.tenancy, audit: setupAudit }, scope, {
        name: `k${i}`,
        expiresAt: null,
        createdBy: null,
      });
    const keys = await Promise.allSettled(
      ["x", "y", "z"].map((name) => user.caller.apiKey.create({ teamSlug, projectSlug: "p1", name, expiresAt: null })),
    );
    expect(keys.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected", "rejected"]);
  }, 60_000);
});

describe("active keys a project has", () => {
  it("refuses the 51st, naming the limit; a rotation is not refused; revoking makes room", async () => {
    const { user, teamSlug, teamId } = await onboarded("keyholder");
    const project = await user.caller.project.create({ teamSlug, name: "Shop", slug: "shop" });
    const scope = { teamId, projectId: project.id };
    for (let i = 1; i <= 49; i++)
      await createApiKey({ ...app.services.dashboard.tenancy, audit: setupAudit }, scope, {
        name: `k${i}`,
        expiresAt: null,
        createdBy: null,
      });
    const fiftieth = await user.caller.apiKey.create({ teamSlug, projectSlug: "shop", name: "k50", expiresAt: null });

    const extra = { teamSlug, projectSlug: "shop", name: "extra", expiresAt: null };
    await expect(user.caller.apiKey.create(extra)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/at most 50 active API keys/) as unknown,
    });
    // The command line creates keys through the same function.
    await expect(
      createApiKey({ ...app.services.dashboard.tenancy, audit: setupAudit }, scope, {
        name: "cli",
        expiresAt: null,
        createdBy: null,
      }),
    ).rejects.toMatchObject({ code: "QUOTA_REACHED" });
    // A rotation replaces a key: the count of active keys stays where it was.
    await user.caller.apiKey.rotate({ teamSlug, projectSlug: "shop", keyId: fiftieth.id, graceSeconds: 3600 });
    await expect(user.caller.apiKey.create(extra)).rejects.toMatchObject({ code: "CONFLICT" });

    // Revoking the rotated key frees nothing (it was no longer active); revoking an active one does.
    await user.caller.apiKey.revoke({ teamSlug, projectSlug: "shop", keyId: fiftieth.id });
    await expect(user.caller.apiKey.create(extra)).rejects.toMatchObject({ code: "CONFLICT" });
    const active = (await user.caller.apiKey.list({ teamSlug, projectSlug: "shop" })).filter(
      (k) => k.status === "active",
    );
    await user.caller.apiKey.revoke({ teamSlug, projectSlug: "shop", keyId: active[0]!.id });
    expect((await user.caller.apiKey.create(extra)).publicKey).toMatch(/^pk_/);
  }, 60_000);
});

describe("uploads a team makes", () => {
  it("refuses the team's 61st upload in an hour, whoever of its admins sends it, with Retry-After; another team's uploads go on", async () => {
    await clearOfWindowEdge(3_600_000, 60_000);
    const { user: owner, teamSlug } = await onboarded("uploader");
    const admin = await signUp(app.services, "co-uploader");
    const invitation = await owner.caller.team.invite({ teamSlug, email: admin.email, role: "admin" });
    await admin.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
    await owner.caller.project.create({ teamSlug, name: "Shop", slug: "shop" });
    const other = await onboarded("neighbour");
    await other.user.caller.project.create({ teamSlug: other.teamSlug, name: "Shop", slug: "shop" });

    const logo = (
      await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 0, b: 0 } } })
        .png()
        .toBuffer()
    ).toString("base64");
    const upload = (user: TestUser, slug = teamSlug) =>
      user.caller.projectImage.upload({ teamSlug: slug, projectSlug: "shop", kind: "watermark", base64: logo });
    // Two admins, 30 each: each stays far below the per-account limit on changes.
    for (let i = 0; i < 30; i++) {
      await upload(owner);
      await upload(admin);
    }
    await expect(upload(owner)).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringMatching(/60 uploads an hour/) as unknown,
    });
    await expect(upload(admin)).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    await upload(other.user, other.teamSlug);
  }, 120_000);
});

import { and, eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, teams } from "@/server/db/schema";
import { createExportHandler } from "@/server/http/export-route";
import { usageExport } from "@/server/http/exports";
import { createTestApp, type TestApp } from "../../support/app";
import { authRequest, callerFor, cookieFrom, signUp, type TestUser } from "../../support/dashboard";
import { buildTenantWorld, type TenantWorld } from "../../support/tenant-world";
import { isolationCases } from "./isolation-cases";

/**
 * "Members must use a second factor": a team that requires it keeps every team and project procedure
 * (each one, enumerated from the router) and the exports from a member without one, whatever the
 * role, until that member sets one up; the image route is not affected. The admin who turns it on must
 * have one. OPTSTUFF_REQUIRE_SECOND_FACTOR requires it of every team and of the instance's own log.
 */
const tenantCases = Object.entries(isolationCases).filter(([, c]) => c.scope === "team" || c.scope === "project");
const PASSWORD = "correct horse battery";

/** Sets up the account's second factor through the auth route; answers the new session's caller and cookie. */
async function enrol(app: TestApp, user: TestUser, address: string) {
  const enabled = await authRequest(
    app.services,
    "/two-factor/enable",
    { password: PASSWORD },
    { cookie: user.cookie, address },
  );
  const totp = OTPAuth.URI.parse(((await enabled.json()) as { totpURI: string }).totpURI) as OTPAuth.TOTP;
  const confirmed = await authRequest(
    app.services,
    "/two-factor/verify-totp",
    { code: totp.generate() },
    { cookie: user.cookie, address },
  );
  expect(confirmed.status).toBe(200);
  const cookie = cookieFrom(confirmed);
  return { cookie, caller: await callerFor(app.services, cookie) };
}

const refusedForSecondFactor = { code: "FORBIDDEN", cause: { code: "SECOND_FACTOR_REQUIRED" } };

describe("a team that requires a second factor", () => {
  let app: TestApp;
  let world: TenantWorld;
  let admin: Awaited<ReturnType<typeof enrol>>;
  beforeAll(async () => {
    app = await createTestApp();
    world = await buildTenantWorld(app.services, "guarded");
  }, 60_000);
  afterAll(() => app.close());

  const entries = (teamSlug: string) =>
    app.services.database.db
      .select({ action: auditLog.action, changes: auditLog.changes })
      .from(auditLog)
      .innerJoin(teams, eq(teams.id, auditLog.teamId))
      .where(and(eq(teams.slug, teamSlug), eq(auditLog.action, "team.updated")));

  it("is turned on only by an admin who has one: refused at its field otherwise, nothing changed", async () => {
    await expect(
      world.owner.caller.team.update({ teamSlug: world.teamSlug, requireSecondFactor: true }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", cause: { code: "INVALID_INPUT", field: "requireSecondFactor" } });
    expect((await world.owner.caller.team.get({ teamSlug: world.teamSlug })).team.requireSecondFactor).toBe(false);
    expect(await entries(world.teamSlug)).toEqual([]);

    admin = await enrol(app, world.admin, "203.0.113.71");
    const updated = await admin.caller.team.update({ teamSlug: world.teamSlug, requireSecondFactor: true });
    expect(updated.requireSecondFactor).toBe(true);
    expect(await entries(world.teamSlug)).toEqual([
      { action: "team.updated", changes: { requireSecondFactor: { from: false, to: true } } },
    ]);
    // The admin who has one goes on using the team.
    expect((await admin.caller.team.get({ teamSlug: world.teamSlug })).secondFactorRequiredByInstance).toBe(false);
  });

  it.each(tenantCases)("%s: keeps out its owner, who has none", async (_path, testCase) => {
    await expect(testCase.call(world.owner.caller, world)).rejects.toMatchObject(refusedForSecondFactor);
  });

  it("keeps a member without one out of the exports too, and opens to the member once one is set up", async () => {
    const exported = (cookie: string) =>
      createExportHandler(
        async () => app.services,
        usageExport,
      )(new Request(`http://127.0.0.1/api/export/usage?team=${world.teamSlug}`, { headers: { cookie } }));
    const refused = await exported(world.member.cookie);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "SECOND_FACTOR_REQUIRED" });
    await expect(world.member.caller.team.get({ teamSlug: world.teamSlug })).rejects.toMatchObject(
      refusedForSecondFactor,
    );
    // What is not the team's still answers: the account's own page, its list of teams.
    expect((await world.member.caller.account.me()).teams.map((t) => t.slug)).toContain(world.teamSlug);
    expect(await world.member.caller.account.security()).toMatchObject({
      secondFactor: false,
      password: true,
      passkeys: [],
    });

    const member = await enrol(app, world.member, "203.0.113.72");
    expect(await member.caller.account.security()).toMatchObject({ secondFactor: true, password: true, passkeys: [] });
    expect((await member.caller.team.get({ teamSlug: world.teamSlug })).role).toBe("member");
    // Past the second factor, the member's role is what refuses an export now; the admin's is served.
    expect(await (await exported(member.cookie)).json()).toMatchObject({ code: "NOT_PERMITTED" });
    expect((await exported(admin.cookie)).status).toBe(200);
  });

  it("does not touch the image route: the team's signed URLs are served", async () => {
    await app.services.database.db.update(teams).set({ requireSecondFactor: true }).where(eq(teams.slug, "acme"));
    expect((await app.fetch(app.signedPath("w_40", "local/photo.jpg"))).status).toBe(200);
  });
});

describe("OPTSTUFF_REQUIRE_SECOND_FACTOR", () => {
  let app: TestApp;
  let owner: TestUser;
  let teamSlug: string;
  beforeAll(async () => {
    app = await createTestApp({ env: { OPTSTUFF_REQUIRE_SECOND_FACTOR: "1" } });
    // The first account owns the instance; signing up and naming the team are the account's own steps.
    owner = await signUp(app.services, "instance-owner");
    teamSlug = (await owner.caller.account.completeOnboarding({ name: "Instance", slug: `instance-${Date.now()}` }))
      .slug;
  }, 60_000);
  afterAll(() => app.close());

  it("keeps every account without one out of every team, its own new team included, and out of the instance's log", async () => {
    await expect(owner.caller.team.get({ teamSlug })).rejects.toMatchObject(refusedForSecondFactor);
    await expect(owner.caller.audit.instanceList({ limit: 10 })).rejects.toMatchObject(refusedForSecondFactor);
    const fresh = await signUp(app.services, "fresh");
    const team = await fresh.caller.account.completeOnboarding({ name: "Fresh", slug: `fresh-${Date.now()}` });
    await expect(fresh.caller.team.get({ teamSlug: team.slug })).rejects.toMatchObject(refusedForSecondFactor);

    const enrolled = await enrol(app, owner, "203.0.113.73");
    const seen = await enrolled.caller.team.get({ teamSlug });
    expect(seen.secondFactorRequiredByInstance).toBe(true);
    // Its own log says it: the account turned a second factor on.
    const log = await enrolled.caller.audit.instanceList({ limit: 10 });
    expect(log.entries.map((entry) => entry.action)).toContain("account.second_factor_enabled");
  });
});

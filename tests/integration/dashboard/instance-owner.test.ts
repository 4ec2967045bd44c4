import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { findInstanceOwner } from "@/server/tenancy/registration";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { authRequest, callerFor, cookieFrom, signUp } from "../../support/dashboard";
import { setupAudit } from "../../support/audit";

/**
 * The quickstart makes a team, project and key before any account exists (`optstuff bootstrap` on
 * first start). Nobody could see that team: its traffic belonged to no account and its slug was
 * "already taken". The instance's owner adopts such teams.
 */
let app: TestApp;
beforeAll(async () => {
  // The test app bootstraps team "acme", project "blog" and a key, as the quickstart does: no owner.
  app = await createTestApp({ env: { ...NO_REDIS, OPTSTUFF_REGISTRATION: "open" } });
}, 60_000);
afterAll(() => app.close());

describe("the teams the command line made before anyone signed up", () => {
  it("belong to the first account, whose usage pages show the quickstart key's traffic", async () => {
    for (const width of [40, 41])
      expect((await app.fetch(app.signedPath(`w_${width}`, "local/photo.jpg"))).status).toBe(200);
    await app.settled();
    await app.services.jobs.cron.flushUsage({ safetyLagMs: -60_000 });

    const owner = await signUp(app.services, "owner");
    const me = await owner.caller.account.me();
    expect(me.teams.find((t) => t.slug === "acme")).toMatchObject({ role: "owner" });
    expect((await owner.caller.project.list({ teamSlug: "acme" })).map((p) => p.slug)).toEqual(["blog"]);
    const usage = await owner.caller.usage.team({ teamSlug: "acme", range: { preset: "7d" } });
    expect(usage.totals.requests).toBe(2);
    const keys = await owner.caller.apiKey.list({ teamSlug: "acme", projectSlug: "blog" });
    expect(keys.map((k) => k.publicKey)).toEqual([app.key.publicKey]);
  });

  it("stay invisible to every later account", async () => {
    const other = await signUp(app.services, "other");
    expect((await other.caller.account.me()).teams.map((t) => t.slug)).not.toContain("acme");
    await expect(other.caller.project.list({ teamSlug: "acme" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("made after the owner exists are the owner's at once; one left ownerless is adopted at the owner's next sign-in", async () => {
    const db = app.services.database.db;
    const ownerId = (await findInstanceOwner({ db }))!.id;
    const secretBox = app.services.secretBox;
    await bootstrap(
      { db, secretBox, audit: setupAudit, now: () => new Date() },
      { teamSlug: "made-later", projectSlug: "site", keyName: "k", ownerId },
    );
    await bootstrap(
      { db, secretBox, audit: setupAudit, now: () => new Date() },
      { teamSlug: "orphan", projectSlug: "site", keyName: "k" },
    );
    const [{ email }] = [(await findInstanceOwner({ db }))!];
    const signIn = await authRequest(app.services, "/sign-in/email", { email, password: "correct horse battery" });
    expect(signIn.status).toBe(200);
    const teams = (await (await callerFor(app.services, cookieFrom(signIn))).account.me()).teams;
    expect(teams.filter((t) => ["made-later", "orphan"].includes(t.slug)).map((t) => [t.slug, t.role])).toEqual([
      ["made-later", "owner"],
      ["orphan", "owner"],
    ]);
  });
});

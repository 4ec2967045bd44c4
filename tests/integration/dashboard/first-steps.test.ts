import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onboardingStep } from "@/lib/first-steps";
import { auditLog, teams, user } from "@/server/db/schema";
import type { Services } from "@/server/services";
import { setUpNewAccount } from "@/server/tenancy/onboarding";
import { listTeamsForUser } from "@/server/tenancy/teams";
import { createTestApp, type TestApp } from "../../support/app";
import { authRequest, callerFor, cookieFrom, signUp, type TestUser } from "../../support/dashboard";
import { tokenOf } from "../../support/tenant-world";

/**
 * Where a new account starts, through the app's real auth route: the first account in the team the
 * command line made before it (the quickstart's `demo`; the test app's `acme`), an invited account at
 * its invitation with no team made on the way, any other in a team of its own waiting for its name.
 */
const password = "correct horse battery";
const address = (label: string) => `${label}-${randomBytes(4).toString("hex")}@example.com`;

async function register(services: Services, email: string, invitation?: string): Promise<TestUser> {
  const response = await authRequest(services, "/sign-up/email", {
    email,
    password,
    name: email.split("@")[0],
    ...(invitation && { invitation }),
  });
  if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  const cookie = cookieFrom(response);
  const { user } = (await response.json()) as { user: { id: string } };
  return { id: user.id, email, name: email, cookie, caller: await callerFor(services, cookie) };
}

describe("invite-only (the default)", () => {
  let app: TestApp;
  let owner: TestUser;
  const teamSlug = "acme";
  const invite = async (email: string) =>
    tokenOf((await owner.caller.team.invite({ teamSlug, email, role: "member" })).link);

  beforeAll(async () => {
    app = await createTestApp({ env: { OPTSTUFF_REGISTRATION: "invite-only" } });
  }, 60_000);
  afterAll(() => app.close());

  it("the first account owns the instance, adopts the team made before it and starts there, with no team of its own", async () => {
    owner = await signUp(app.services, "owner");
    const me = await owner.caller.account.me();
    expect(me.ownsInstance).toBe(true);
    expect(me.teams.map((t) => [t.slug, t.role])).toEqual([[teamSlug, "owner"]]);
    expect(me.pendingTeamSlug).toBeNull();
    // After sign-up the form sends it to onboarding, which sends it on to the team with the demo project.
    expect(onboardingStep(me, "/")).toEqual({ kind: "go", to: `/t/${teamSlug}` });
    expect((await owner.caller.project.list({ teamSlug })).map((p) => p.slug)).toEqual(["blog"]);
  });

  it("an account made from its invitation link gets no team: the invitation is its next step, and accepting joins", async () => {
    const email = address("invitee");
    const token = await invite(email);
    const invitee = await register(app.services, email, token);
    const me = await invitee.caller.account.me();
    expect(me.teams).toEqual([]);
    expect(me.pendingTeamSlug).toBeNull();
    expect(onboardingStep(me, `/invite/${token}`)).toEqual({ kind: "go", to: `/invite/${token}` });

    expect(await invitee.caller.account.acceptInvitation({ token })).toEqual({ teamSlug });
    expect((await invitee.caller.account.me()).teams.map((t) => [t.slug, t.role])).toEqual([[teamSlug, "member"]]);
  });

  it("declining closes the invitation, the team's log says who declined, and onboarding then makes the account's team", async () => {
    const email = address("decliner");
    const token = await invite(email);
    const decliner = await register(app.services, email, token);
    // Someone else holding the link cannot decline it for them.
    await expect(owner.caller.account.declineInvitation({ token })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await decliner.caller.account.invitation({ token })).status).toBe("pending");

    await decliner.caller.account.declineInvitation({ token });
    expect((await decliner.caller.account.invitation({ token })).status).toBe("revoked");
    expect((await owner.caller.team.invitations({ teamSlug })).map((i) => i.email)).not.toContain(email);
    await expect(decliner.caller.account.acceptInvitation({ token })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(decliner.caller.account.declineInvitation({ token })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const db = app.services.database.db;
    const [team] = await db.select({ id: teams.id }).from(teams).where(eq(teams.slug, teamSlug));
    const entries = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.teamId, team!.id), eq(auditLog.action, "invitation.declined")));
    expect(entries.map((e) => [e.actorId, e.targetLabel])).toEqual([[decliner.id, email]]);

    const me = await decliner.caller.account.me();
    expect(me.teams).toEqual([]);
    expect(onboardingStep(me, "/")).toEqual({ kind: "name-team" });
    const own = await decliner.caller.account.completeOnboarding({
      name: "Own",
      slug: `own-${decliner.id.slice(0, 6)}`.toLowerCase(),
    });
    expect((await decliner.caller.account.me()).teams.map((t) => [t.slug, t.role])).toEqual([[own.slug, "owner"]]);
  });
});

describe("a provider's sign-up (its round trip loses the link)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { OPTSTUFF_REGISTRATION: "invite-only" } });
  }, 60_000);
  afterAll(() => app.close());

  it("starts with no team when the provider verified an address that holds an invitation, and with one otherwise", async () => {
    const owner = await signUp(app.services, "owner");
    const invited = address("octo");
    await owner.caller.team.invite({ teamSlug: "acme", email: invited, role: "member" });
    const db = app.services.database.db;
    const teamsOf = async (id: string) => (await listTeamsForUser({ db }, id)).length;
    for (const [email, emailVerified, expected] of [
      [invited, true, 0],
      [address("typed"), false, 1],
      [address("unknown"), true, 1],
    ] as const) {
      const id = randomBytes(8).toString("hex");
      await db
        .insert(user)
        .values({ id, name: "Octo", email, emailVerified, createdAt: new Date(), updatedAt: new Date() });
      await setUpNewAccount(
        { db, now: () => new Date() },
        { id, name: "Octo", email, emailVerified, instanceRole: null },
        { invitationToken: null },
      );
      expect(await teamsOf(id), email).toBe(expected);
    }
  });
});

describe("open registration", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { OPTSTUFF_REGISTRATION: "open" } });
  }, 60_000);
  afterAll(() => app.close());

  it("an account without an invitation, or with a link for another address, gets a team of its own waiting for its name", async () => {
    const owner = await signUp(app.services, "first");
    const stranger = await register(app.services, address("stranger"));
    const me = await stranger.caller.account.me();
    expect(me.teams).toHaveLength(1);
    expect(me.pendingTeamSlug).toBe(me.teams[0]!.slug);
    expect(onboardingStep(me, "/")).toEqual({ kind: "name-team" });

    // Open registration admits a link for another address; it is not this account's invitation.
    const token = tokenOf(
      (await owner.caller.team.invite({ teamSlug: "acme", email: address("x"), role: "member" })).link,
    );
    const other = await register(app.services, address("other"), token);
    expect((await other.caller.account.me()).pendingTeamSlug).not.toBeNull();

    const invitedEmail = address("invited");
    const invitation = await owner.caller.team.invite({ teamSlug: "acme", email: invitedEmail, role: "admin" });
    const invited = await register(app.services, invitedEmail, tokenOf(invitation.link));
    expect((await invited.caller.account.me()).teams).toEqual([]);
  });
});

import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { user } from "@/server/db/schema";
import type { Services } from "@/server/services";
import { admitAccount, findInstanceOwner, signUpOffer, type RegistrationPolicy } from "@/server/tenancy/registration";
import { createTestApp, type TestApp } from "../../support/app";
import { authRequest, callerFor, cookieFrom } from "../../support/dashboard";
import { tokenOf } from "../../support/tenant-world";

/**
 * Who may create an account: the registration policy enforced in better-auth's user-creation gate,
 * through the app's real auth route, on a fresh database per policy.
 */
const password = "correct horse battery";
const inviteOnly: RegistrationPolicy = { mode: "invite-only", emailDomains: [] };
const address = (label: string, domain = "example.com") => `${label}-${randomBytes(4).toString("hex")}@${domain}`;

async function register(services: Services, email: string, extra: Record<string, unknown> = {}) {
  const response = await authRequest(services, "/sign-up/email", {
    email,
    password,
    name: email.split("@")[0],
    ...extra,
  });
  const body = (await response.json()) as { user?: { id: string }; code?: string; message?: string };
  return { status: response.status, body, cookie: cookieFrom(response) };
}

async function accountCount(services: Services, email: string): Promise<number> {
  return (await services.database.db.select({ id: user.id }).from(user).where(eq(user.email, email))).length;
}

describe("invite-only (the default)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { OPTSTUFF_REGISTRATION: "invite-only" } });
  });
  afterAll(() => app.close());

  it("makes the first account the owner of the instance and closes sign-up behind it", async () => {
    const db = app.services.database.db;
    expect(await findInstanceOwner({ db })).toBeNull();
    expect(await signUpOffer({ db, now: () => new Date() }, inviteOnly, null)).toEqual({ kind: "first-account" });

    const first = await register(app.services, address("founder"));
    expect(first.status).toBe(200);
    expect((await findInstanceOwner({ db }))?.id).toBe(first.body.user!.id);

    const strangerEmail = address("stranger");
    const stranger = await register(app.services, strangerEmail);
    expect(stranger.status).toBe(403);
    expect(stranger.body).toMatchObject({ code: "REGISTRATION_CLOSED", message: expect.stringMatching(/invitation/i) });
    expect(await accountCount(app.services, strangerEmail)).toBe(0);
    expect(await signUpOffer({ db, now: () => new Date() }, inviteOnly, null)).toEqual({
      kind: "closed",
      emailDomains: [],
    });
    expect((await findInstanceOwner({ db }))?.id).toBe(first.body.user!.id);
  });

  it("tells the sign-up page what it offers through a public procedure: the closed door, without buttons", async () => {
    const anonymous = await callerFor(app.services, null);
    expect(await anonymous.account.signUpOffer({ invitation: null })).toEqual({
      offer: { kind: "closed", emailDomains: [] },
      providers: [],
    });
    expect(await anonymous.account.signInProviders()).toEqual([]);
    await expect(anonymous.account.signUpOffer({ invitation: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("lets an invited address register from its invitation link, and nobody else with that link", async () => {
    const db = app.services.database.db;
    const owner = await callerFor(app.services, (await findOwnerCookie(app.services)).cookie);
    const teamSlug = (await owner.account.me()).teams[0]!.slug;
    const inviteeEmail = address("invitee");
    const invitation = await owner.team.invite({ teamSlug, email: inviteeEmail, role: "member" });
    const token = tokenOf(invitation.link);
    expect(await signUpOffer({ db, now: () => new Date() }, inviteOnly, token)).toEqual({
      kind: "invited",
      email: inviteeEmail,
      token,
    });

    // The link is the capability: knowing an invited address is not enough to take it.
    expect((await register(app.services, inviteeEmail)).status).toBe(403);
    const other = await register(app.services, address("other"), { invitation: token });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe("INVITATION_EMAIL_MISMATCH");
    expect((await register(app.services, address("forged"), { invitation: "not-a-token" })).status).toBe(403);

    const invitee = await register(app.services, inviteeEmail, { invitation: token });
    expect(invitee.status).toBe(200);
    const joined = await (await callerFor(app.services, invitee.cookie)).account.acceptInvitation({ token });
    expect(joined).toEqual({ teamSlug });
    expect((await findInstanceOwner({ db }))?.email).not.toBe(inviteeEmail);
    // Used: the link opens no further account.
    expect((await register(app.services, address("late"), { invitation: token })).status).toBe(403);
  });

  it("refuses a revoked invitation's link, and one whose inviter may no longer invite", async () => {
    const owner = await callerFor(app.services, (await findOwnerCookie(app.services)).cookie);
    const teamSlug = (await owner.account.me()).teams[0]!.slug;
    const revokedEmail = address("revoked");
    const revoked = await owner.team.invite({ teamSlug, email: revokedEmail, role: "member" });
    await owner.team.revokeInvitation({ teamSlug, invitationId: revoked.id });
    expect((await register(app.services, revokedEmail, { invitation: tokenOf(revoked.link) })).status).toBe(403);

    const adminEmail = address("admin");
    const adminInvitation = await owner.team.invite({ teamSlug, email: adminEmail, role: "admin" });
    const admin = await register(app.services, adminEmail, { invitation: tokenOf(adminInvitation.link) });
    const adminCaller = await callerFor(app.services, admin.cookie);
    await adminCaller.account.acceptInvitation({ token: tokenOf(adminInvitation.link) });
    const guestEmail = address("guest");
    const guestInvitation = await adminCaller.team.invite({ teamSlug, email: guestEmail, role: "member" });
    await owner.team.changeRole({ teamSlug, userId: admin.body.user!.id, role: "member" });
    expect((await register(app.services, guestEmail, { invitation: tokenOf(guestInvitation.link) })).status).toBe(403);
    expect(await accountCount(app.services, guestEmail)).toBe(0);
  });
});

describe("the first account on a busy first start", () => {
  it("two sign-ups at the same moment on an empty instance leave one owner and one account without invitation", async () => {
    const app = await createTestApp({ env: { OPTSTUFF_REGISTRATION: "invite-only" } });
    try {
      const results = await Promise.all([
        register(app.services, address("one")),
        register(app.services, address("two")),
      ]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 200)[0]!.body.user!.id).toBe(
        (await findInstanceOwner(app.services.dashboard.tenancy))?.id,
      );
      const owners = await app.services.database.db
        .select({ id: user.id })
        .from(user)
        .where(eq(user.instanceRole, "owner"));
      expect(owners).toHaveLength(1);
      expect(await app.services.database.db.$count(user)).toBe(1);
    } finally {
      await app.close();
    }
  });
});

describe("an instance updated to this version", () => {
  it("marks its earliest account as the owner of the instance", async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const before = mkdtempSync(path.join(os.tmpdir(), "optstuff-migrations-"));
    cpSync("drizzle", before, { recursive: true });
    const journal = JSON.parse(readFileSync(path.join(before, "meta/_journal.json"), "utf8")) as {
      entries: Array<{ tag: string }>;
    };
    const upgrade = journal.entries.findIndex((e) => e.tag.endsWith("_instance_owner"));
    writeFileSync(
      path.join(before, "meta/_journal.json"),
      JSON.stringify({ ...journal, entries: journal.entries.slice(0, upgrade) }),
    );
    const client = new PGlite();
    try {
      const db = drizzle(client);
      await migrate(db, { migrationsFolder: before });
      await client.query(
        `insert into "user" (id, name, email, created_at) values ('later', 'L', 'later@example.com', now()), ('earliest', 'E', 'earliest@example.com', now() - interval '1 day')`,
      );
      await migrate(db, { migrationsFolder: "drizzle" });
      const owners = await client.query<{ id: string }>(`select id from "user" where instance_role = 'owner'`);
      expect(owners.rows).toEqual([{ id: "earliest" }]);
    } finally {
      await client.close();
      rmSync(before, { recursive: true, force: true });
    }
  });
});

describe("open registration and e-mail domains", () => {
  it("admits anyone when open without domains, the first account still becoming the owner", async () => {
    const app = await createTestApp({ env: { OPTSTUFF_REGISTRATION: "open" } });
    try {
      const first = await register(app.services, address("first"));
      const second = await register(app.services, address("second"));
      expect([first.status, second.status]).toEqual([200, 200]);
      expect((await findInstanceOwner(app.services.dashboard.tenancy))?.id).toBe(first.body.user!.id);
      expect(
        await signUpOffer(
          { db: app.services.database.db, now: () => new Date() },
          { mode: "open", emailDomains: [] },
          null,
        ),
      ).toEqual({ kind: "open" });

      // The owner mark is not an input: a client cannot set it, in any policy.
      const usurper = await register(app.services, address("usurper"), { instanceRole: "owner" });
      expect(usurper.status).toBe(400);
      expect((await findInstanceOwner(app.services.dashboard.tenancy))?.id).toBe(first.body.user!.id);
    } finally {
      await app.close();
    }
  });

  it("admits addresses of the listed domains only when their provider verified them, and invited ones", async () => {
    const policy: RegistrationPolicy = { mode: "invite-only", emailDomains: ["corp.example"] };
    const app = await createTestApp({
      env: { OPTSTUFF_REGISTRATION: "invite-only", OPTSTUFF_REGISTRATION_EMAIL_DOMAINS: "corp.example" },
    });
    try {
      const db = app.services.database.db;
      expect((await register(app.services, address("boss", "corp.example"))).status).toBe(200); // the first account
      const now = new Date();
      // OptStuff sends no verification mail: a typed address proves nothing, a provider's verified one does.
      await expect(
        admitAccount({ db, now: () => now }, policy, {
          email: "dev@corp.example",
          emailVerified: true,
          invitationToken: null,
        }),
      ).resolves.toBeUndefined();
      await expect(
        admitAccount({ db, now: () => now }, policy, {
          email: "Dev@CORP.example",
          emailVerified: true,
          invitationToken: null,
        }),
      ).resolves.toBeUndefined();
      await expect(
        admitAccount({ db, now: () => now }, policy, {
          email: "dev@corp.example",
          emailVerified: false,
          invitationToken: null,
        }),
      ).rejects.toMatchObject({ code: "REGISTRATION_CLOSED" });
      await expect(
        admitAccount({ db, now: () => now }, policy, {
          email: "dev@sub.corp.example",
          emailVerified: true,
          invitationToken: null,
        }),
      ).rejects.toMatchObject({ code: "REGISTRATION_CLOSED" });
      await expect(
        admitAccount({ db, now: () => now }, policy, {
          email: "dev@evilcorp.example",
          emailVerified: true,
          invitationToken: null,
        }),
      ).rejects.toMatchObject({ code: "REGISTRATION_CLOSED" });
      expect((await register(app.services, address("typed", "corp.example"))).status).toBe(403);
      expect(await signUpOffer({ db, now: () => now }, policy, null)).toEqual({
        kind: "closed",
        emailDomains: ["corp.example"],
      });

      // A provider-verified address holding a pending invitation needs no link (the OAuth round trip loses it).
      const owner = await callerFor(app.services, (await findOwnerCookie(app.services)).cookie);
      const teamSlug = (await owner.account.me()).teams[0]!.slug;
      await owner.team.invite({ teamSlug, email: "guest@elsewhere.example", role: "member" });
      await expect(
        admitAccount({ db, now: () => now }, policy, {
          email: "guest@elsewhere.example",
          emailVerified: true,
          invitationToken: null,
        }),
      ).resolves.toBeUndefined();
      await expect(
        admitAccount({ db, now: () => now }, policy, {
          email: "guest@elsewhere.example",
          emailVerified: false,
          invitationToken: null,
        }),
      ).rejects.toMatchObject({ code: "REGISTRATION_CLOSED" });
    } finally {
      await app.close();
    }
  });

  it("is invite-only unless the operator says open, and normalises the domain list", () => {
    const defaults = parseEnv({});
    expect([defaults.OPTSTUFF_REGISTRATION, defaults.OPTSTUFF_REGISTRATION_EMAIL_DOMAINS]).toEqual(["invite-only", []]);
    const open = parseEnv({
      OPTSTUFF_REGISTRATION: "open",
      OPTSTUFF_REGISTRATION_EMAIL_DOMAINS: " Corp.Example, @team.example. ,,",
    });
    expect([open.OPTSTUFF_REGISTRATION, open.OPTSTUFF_REGISTRATION_EMAIL_DOMAINS]).toEqual([
      "open",
      ["corp.example", "team.example"],
    ]);
    expect(() => parseEnv({ OPTSTUFF_REGISTRATION: "closed" })).toThrow(/OPTSTUFF_REGISTRATION/);
    expect(() => parseEnv({ OPTSTUFF_REGISTRATION_EMAIL_DOMAINS: "corp.example, not a domain" })).toThrow(
      /OPTSTUFF_REGISTRATION_EMAIL_DOMAINS/,
    );
  });
});

/** Signs the instance owner in again (the tests do not keep cookies across cases). */
async function findOwnerCookie(services: Services): Promise<{ cookie: string }> {
  const owner = await findInstanceOwner(services.dashboard.tenancy);
  const response = await authRequest(services, "/sign-in/email", { email: owner!.email, password });
  if (response.status !== 200) throw new Error(`owner sign-in failed: ${response.status}`);
  return { cookie: cookieFrom(response) };
}

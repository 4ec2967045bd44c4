import { and, eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_FAILURES } from "@/server/auth/sign-in-failures";
import { WINDOW_MS } from "@/server/coordination/windows";
import { auditLog, twoFactor, user as users } from "@/server/db/schema";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { authRequest, cookieFrom, signUp, type TestUser } from "../../support/dashboard";

/**
 * A second factor (TOTP and recovery codes, better-auth's two-factor plugin) through the app's own
 * auth route: enrolment, sign-in with a code or a recovery code, and wrong codes counted against the
 * account in the failure window wrong passwords count in. Codes are made by an authenticator library
 * of its own (otpauth) from the URI the enrolment gives.
 */
const PASSWORD = "correct horse battery";
let app: TestApp;
let account: TestUser;
let totp: OTPAuth.TOTP;
let recoveryCodes: string[];

beforeAll(async () => {
  app = await createTestApp();
  account = await signUp(app.services, "second-factor");
}, 60_000);
afterAll(async () => app.close());

const json = async <T>(response: Response) => (await response.json()) as T;
const signIn = () => authRequest(app.services, "/sign-in/email", { email: account.email, password: PASSWORD });
const sessionOf = async (cookie: string) => {
  const response = await app.services.dashboard
    .auth()
    .then((auth) => auth.api.getSession({ headers: new Headers({ cookie }) }));
  return response?.user.id ?? null;
};
const signedInEntries = () =>
  app.services.database.db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(and(eq(auditLog.action, "account.signed_in"), eq(auditLog.targetId, account.id)));

describe("a second factor", () => {
  it("is enrolled with the password, shown once as an otpauth URI and ten recovery codes, and on only once a code is confirmed", async () => {
    const enabled = await authRequest(
      app.services,
      "/two-factor/enable",
      { password: PASSWORD },
      { cookie: account.cookie },
    );
    expect(enabled.status).toBe(200);
    const body = await json<{ totpURI: string; backupCodes: string[] }>(enabled);
    totp = OTPAuth.URI.parse(body.totpURI) as OTPAuth.TOTP;
    expect(totp).toBeInstanceOf(OTPAuth.TOTP);
    expect(totp.issuer).toBe("OptStuff");
    expect(totp.label).toBe(account.email);
    recoveryCodes = body.backupCodes;
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    // Sealed at rest: neither the secret nor a code is stored as given.
    const [stored] = await app.services.database.db.select().from(twoFactor).where(eq(twoFactor.userId, account.id));
    expect(stored!.secret).not.toContain(totp.secret.base32);
    for (const code of recoveryCodes) expect(stored!.backupCodes).not.toContain(code);
    // Not on until the app's code is confirmed: a password still signs in alone.
    expect(await json<{ twoFactorRedirect?: boolean }>(await signIn())).not.toHaveProperty("twoFactorRedirect");
    const wrongPassword = await authRequest(
      app.services,
      "/two-factor/enable",
      { password: "not it" },
      { cookie: account.cookie },
    );
    expect(wrongPassword.status).toBe(400);

    const confirmed = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: totp.generate() },
      { cookie: account.cookie },
    );
    expect(confirmed.status).toBe(200);
    const [row] = await app.services.database.db
      .select({ on: users.twoFactorEnabled })
      .from(users)
      .where(eq(users.id, account.id));
    expect(row!.on).toBe(true);
  });

  it("asks a password sign-in for a code: no session before it, one sign-in entry after it", async () => {
    const entriesBefore = (await signedInEntries()).length;
    const first = await signIn();
    expect(first.status).toBe(200);
    expect(await json<{ twoFactorRedirect: boolean }>(first)).toMatchObject({ twoFactorRedirect: true });
    const challenge = cookieFrom(first);
    expect(challenge).toContain("two_factor=");
    expect(await sessionOf(challenge)).toBeNull();
    expect((await signedInEntries()).length).toBe(entriesBefore); // the password alone is no sign-in

    const wrong = await authRequest(app.services, "/two-factor/verify-totp", { code: "000000" }, { cookie: challenge });
    expect(wrong.status).toBe(401);
    const right = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: totp.generate() },
      { cookie: challenge },
    );
    expect(right.status).toBe(200);
    expect(await sessionOf(cookieFrom(right))).toBe(account.id);
    expect((await signedInEntries()).length).toBe(entriesBefore + 1);
  });

  it("takes a recovery code instead, once", async () => {
    const challenge = cookieFrom(await signIn());
    const used = await authRequest(
      app.services,
      "/two-factor/verify-backup-code",
      { code: recoveryCodes[0] },
      { cookie: challenge },
    );
    expect(used.status).toBe(200);
    expect(await sessionOf(cookieFrom(used))).toBe(account.id);
    const again = await authRequest(
      app.services,
      "/two-factor/verify-backup-code",
      { code: recoveryCodes[0] },
      { cookie: cookieFrom(await signIn()) },
    );
    expect(again.status).toBe(401);
  });

  it("audits turning it on, new recovery codes and turning it off, as the account; the sessions they replace are no sign-ins", async () => {
    const audited = await signUp(app.services, "audited");
    const address = "203.0.113.54"; // better-auth allows three /two-factor/ calls per 10 s per address
    const entries = async () =>
      (
        await app.services.database.db
          .select({ action: auditLog.action, actor: auditLog.actorId, team: auditLog.teamId })
          .from(auditLog)
          .where(eq(auditLog.targetId, audited.id))
          .orderBy(auditLog.id)
      ).filter((entry) => entry.action !== "account.created");
    const signedUp = await entries();
    const call = async (path: string, body: object, cookie: string, from = address) => {
      const response = await authRequest(app.services, path, body, { cookie, address: from });
      expect(response.status, path).toBe(200);
      return response;
    };
    const enrolled = await call("/two-factor/enable", { password: PASSWORD }, audited.cookie);
    const code = OTPAuth.URI.parse((await json<{ totpURI: string }>(enrolled)).totpURI) as OTPAuth.TOTP;
    const confirmed = await call("/two-factor/verify-totp", { code: code.generate() }, audited.cookie);
    // The confirmation replaced the session; the new one renews the codes and turns the factor off.
    const session = cookieFrom(confirmed);
    expect(await sessionOf(session)).toBe(audited.id);
    // A code confirmed again while on changes nothing and says nothing.
    await call("/two-factor/verify-totp", { code: code.generate() }, session, "203.0.113.55");
    await call("/two-factor/generate-backup-codes", { password: PASSWORD }, session, "203.0.113.55");
    const refused = await authRequest(
      app.services,
      "/two-factor/generate-backup-codes",
      { password: "not it" },
      { cookie: session, address: "203.0.113.55" },
    );
    expect(refused.status).toBe(400);
    await call("/two-factor/disable", { password: PASSWORD }, session, "203.0.113.56");
    expect((await entries()).slice(signedUp.length)).toEqual(
      ["account.second_factor_enabled", "account.recovery_codes_renewed", "account.second_factor_disabled"].map(
        (action) => ({ action, actor: audited.id, team: null }),
      ),
    );
  });

  it("counts wrong codes against the account with its wrong passwords: the window closes for both", async () => {
    // An account of its own, so the window holds exactly what this test sends.
    const guarded = await signUp(app.services, "guarded");
    const enrolled = await authRequest(
      app.services,
      "/two-factor/enable",
      { password: PASSWORD },
      { cookie: guarded.cookie },
    );
    const code = OTPAuth.URI.parse((await json<{ totpURI: string }>(enrolled)).totpURI) as OTPAuth.TOTP;
    const confirmed = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: code.generate() },
      { cookie: guarded.cookie },
    );
    expect(confirmed.status).toBe(200);
    const signInGuarded = () =>
      authRequest(app.services, "/sign-in/email", { email: guarded.email, password: PASSWORD });
    await clearOfWindowEdge(WINDOW_MS[SIGN_IN_FAILURES.window], 30_000);
    const codes = 3;
    for (let i = 0; i < SIGN_IN_FAILURES.max - codes; i++) {
      const wrong = await authRequest(app.services, "/sign-in/email", { email: guarded.email, password: `guess ${i}` });
      expect(wrong.status).toBe(401);
    }
    for (let i = 0; i < codes; i++) {
      const challenge = cookieFrom(await signInGuarded());
      const wrong = await authRequest(
        app.services,
        "/two-factor/verify-totp",
        { code: `12345${i}` },
        { cookie: challenge },
      );
      expect(wrong.status).toBe(401);
    }
    // Ten failures, three of them codes: the right password is refused now.
    const refused = await signInGuarded();
    expect(refused.status).toBe(429);
    expect(await json<{ code: string }>(refused)).toMatchObject({ code: "RATE_LIMITED" });
  }, 60_000);
});

describe("what a second factor does not let through", () => {
  /** A fresh account with its factor confirmed; answers its TOTP and the session cookie the confirmation made. */
  async function enrolled(label: string) {
    const fresh = await signUp(app.services, label);
    const enabled = await authRequest(
      app.services,
      "/two-factor/enable",
      { password: PASSWORD },
      { cookie: fresh.cookie },
    );
    const code = OTPAuth.URI.parse((await json<{ totpURI: string }>(enabled)).totpURI) as OTPAuth.TOTP;
    const confirmed = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: code.generate() },
      { cookie: fresh.cookie },
    );
    expect(confirmed.status).toBe(200);
    return { account: fresh, code, cookie: cookieFrom(confirmed) };
  }
  const signInAs = (email: string) => authRequest(app.services, "/sign-in/email", { email, password: PASSWORD });

  it("signs out every other session when it is turned on: none of them gave a code", async () => {
    const other = await signUp(app.services, "two-sessions");
    const second = cookieFrom(
      await authRequest(app.services, "/sign-in/email", { email: other.email, password: PASSWORD }),
    );
    expect(await sessionOf(second)).toBe(other.id);
    const enabled = await authRequest(
      app.services,
      "/two-factor/enable",
      { password: PASSWORD },
      { cookie: other.cookie },
    );
    const code = OTPAuth.URI.parse((await json<{ totpURI: string }>(enabled)).totpURI) as OTPAuth.TOTP;
    const confirmed = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: code.generate() },
      { cookie: other.cookie },
    );
    expect(await sessionOf(second)).toBeNull();
    expect(await sessionOf(other.cookie)).toBeNull();
    expect(await sessionOf(cookieFrom(confirmed))).toBe(other.id);
  });

  it("makes no session for such an account outside its code: not from a provider, not from anywhere else", async () => {
    const { account: guarded } = await enrolled("no-bypass");
    const context = await (await app.services.dashboard.auth()).$context;
    // What a GitHub or Google callback does once it has found the account (the plugin never asks them).
    expect(await context.internalAdapter.createSession(guarded.id)).toBeNull();
    const plain = await signUp(app.services, "no-factor");
    expect(await context.internalAdapter.createSession(plain.id)).not.toBeNull();
  });

  it("does not remember a device: a sign-in asking for it is refused, the code still works without it", async () => {
    const { account: guarded, code } = await enrolled("no-trust");
    const challenge = cookieFrom(await signInAs(guarded.email));
    const trusted = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: code.generate(), trustDevice: true },
      { cookie: challenge },
    );
    expect(trusted.status).toBe(400);
    expect(trusted.headers.getSetCookie().join(";")).not.toContain("trust_device");
    const plain = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: code.generate() },
      { cookie: challenge },
    );
    expect(plain.status).toBe(200);
  });

  it("refuses a code sent with two challenge cookies, which could be counted against one and checked against the other", async () => {
    const { account: guarded } = await enrolled("two-cookies");
    const challenge = cookieFrom(await signInAs(guarded.email));
    const doubled = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: "123456" },
      { cookie: `${challenge}; better-auth.two_factor=2fa-made-up.signature` },
    );
    expect(doubled.status).toBe(400);
    expect(await json<{ code: string }>(doubled)).toMatchObject({ code: "INVALID_INPUT" });
  });

  it("counts a wrong confirming password against the account: a stolen session cannot guess it past the window", async () => {
    const { account: guarded, cookie } = await enrolled("confirm-guesses");
    await clearOfWindowEdge(WINDOW_MS[SIGN_IN_FAILURES.window], 30_000);
    const paths = ["/two-factor/disable", "/two-factor/generate-backup-codes"];
    for (let i = 0; i < SIGN_IN_FAILURES.max; i++) {
      const wrong = await authRequest(app.services, paths[i % 2]!, { password: `guess ${i}` }, { cookie });
      expect(wrong.status).toBe(400);
    }
    const refused = await authRequest(app.services, "/two-factor/disable", { password: PASSWORD }, { cookie });
    expect(refused.status).toBe(429);
    expect((await signInAs(guarded.email)).status).toBe(429);
    // Still on: the right password came too late.
    const [row] = await app.services.database.db
      .select({ on: users.twoFactorEnabled })
      .from(users)
      .where(eq(users.id, guarded.id));
    expect(row!.on).toBe(true);
  }, 60_000);

  it("writes no entry for turning off a factor the account never had", async () => {
    const never = await signUp(app.services, "never-had");
    const off = await authRequest(
      app.services,
      "/two-factor/disable",
      { password: PASSWORD },
      { cookie: never.cookie },
    );
    expect(off.status).toBe(200);
    const entries = await app.services.database.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.targetId, never.id), eq(auditLog.action, "account.second_factor_disabled")));
    expect(entries).toEqual([]);
  });
});

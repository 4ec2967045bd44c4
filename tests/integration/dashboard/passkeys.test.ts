import { and, eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSKEYS_PER_ACCOUNT } from "@/server/auth/passkeys";
import { SIGN_IN_FAILURES } from "@/server/auth/sign-in-failures";
import { auditLog, passkey } from "@/server/db/schema";
import { createTestApp, type TestApp } from "../../support/app";
import { authGet, authRequest, cookieFrom, DASHBOARD_ORIGIN, signUp, type TestUser } from "../../support/dashboard";
import { createSoftAuthenticator, type SoftAuthenticator } from "../../support/webauthn-authenticator";

/**
 * Passkeys (better-auth's passkey plugin) through the app's own auth route, answered by a software
 * security key (ES256, attestation "none"): added only with the password, signing in on their own (an
 * account with a second factor too), refused without user verification, for another origin, replayed,
 * removed, or past the limit.
 */
const PASSWORD = "correct horse battery";
const RP = { origin: DASHBOARD_ORIGIN, rpId: new URL(DASHBOARD_ORIGIN).hostname };
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => app.close());

const json = async <T>(response: Response) => (await response.json()) as T;
const join = (...cookies: string[]) => cookies.filter(Boolean).join("; ");
const sessionOf = async (cookie: string) =>
  (await (await app.services.dashboard.auth()).api.getSession({ headers: new Headers({ cookie }) }))?.user.id ?? null;
const entries = async (userId: string, action: string) =>
  (
    await app.services.database.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(and(eq(auditLog.action, action), eq(auditLog.targetId, userId)))
  ).length;
const storedKeys = (userId: string) =>
  app.services.database.db.select().from(passkey).where(eq(passkey.userId, userId));

/** The registration's two requests: the options (and their challenge cookie), then the key's answer. */
async function register(
  account: TestUser,
  key: SoftAuthenticator,
  body: Record<string, unknown> = { password: PASSWORD },
  overrides?: Parameters<SoftAuthenticator["register"]>[1],
) {
  const options = await authGet(app.services, "/passkey/generate-register-options", { cookie: account.cookie });
  if (options.status !== 200) return options;
  const response = await key.register(await options.json(), overrides);
  return authRequest(
    app.services,
    "/passkey/verify-registration",
    { response, ...body },
    { cookie: join(account.cookie, cookieFrom(options)) },
  );
}

/** A sign-in with no session: the options name no account, the key picks its own credential. */
async function signInWith(key: SoftAuthenticator, overrides?: Parameters<SoftAuthenticator["authenticate"]>[2]) {
  const options = await authGet(app.services, "/passkey/generate-authenticate-options");
  expect(options.status).toBe(200);
  const challenge = cookieFrom(options);
  const response = await key.authenticate(await options.json(), undefined, overrides);
  const answer = await authRequest(app.services, "/passkey/verify-authentication", { response }, { cookie: challenge });
  return {
    answer,
    replay: () => authRequest(app.services, "/passkey/verify-authentication", { response }, { cookie: challenge }),
  };
}

describe("passkeys", () => {
  it("are added only with the account's password, listed on the account page, and audited", async () => {
    const account = await signUp(app.services, "passkey-owner");
    const key = createSoftAuthenticator(RP);
    const withoutPassword = await register(account, key, {});
    expect(withoutPassword.status).toBe(400);
    expect(await json<{ code: string }>(withoutPassword)).toMatchObject({ code: "INVALID_PASSWORD" });
    expect(await register(account, createSoftAuthenticator(RP), { password: "not it" })).toMatchObject({ status: 400 });
    expect(await storedKeys(account.id)).toHaveLength(0);

    const added = await register(account, createSoftAuthenticator(RP), { password: PASSWORD, name: "Work laptop" });
    expect(added.status).toBe(200);
    const [stored] = await storedKeys(account.id);
    expect(stored).toMatchObject({ name: "Work laptop", counter: 0 });
    expect(await entries(account.id, "account.passkey_added")).toBe(1);
    const security = await account.caller.account.security();
    expect(security.passkeys).toEqual([
      expect.objectContaining({ id: stored!.id, name: "Work laptop", synced: false }),
    ]);
  });

  it("counts wrong confirming passwords in the account's window of wrong passwords", async () => {
    const account = await signUp(app.services, "passkey-guessed");
    for (let i = 0; i < SIGN_IN_FAILURES.max; i++)
      expect((await register(account, createSoftAuthenticator(RP), { password: `guess ${i}` })).status).toBe(400);
    const closed = await register(account, createSoftAuthenticator(RP));
    expect(closed.status).toBe(429);
    expect(await storedKeys(account.id)).toHaveLength(0);
  });

  it("signs in on its own, once per challenge, with one sign-in entry", async () => {
    const account = await signUp(app.services, "passkey-signer");
    const key = createSoftAuthenticator(RP);
    expect((await register(account, key)).status).toBe(200);
    const before = await entries(account.id, "account.signed_in");

    const { answer, replay } = await signInWith(key);
    expect(answer.status).toBe(200);
    expect(await sessionOf(cookieFrom(answer))).toBe(account.id);
    expect(await entries(account.id, "account.signed_in")).toBe(before + 1);
    const [stored] = await storedKeys(account.id);
    expect(stored!.counter).toBe(1);
    // The challenge was consumed: the same answer again signs nobody in.
    const replayed = await replay();
    expect(replayed.status).toBe(400);
    expect(cookieFrom(replayed)).not.toContain("session_token");
  });

  it("signs in an account that has a second factor, without its code (the passkey verified its user)", async () => {
    const account = await signUp(app.services, "passkey-factor");
    const key = createSoftAuthenticator(RP);
    expect((await register(account, key)).status).toBe(200);
    const address = "203.0.113.71";
    const enabled = await authRequest(
      app.services,
      "/two-factor/enable",
      { password: PASSWORD },
      { cookie: account.cookie, address },
    );
    const totp = OTPAuth.URI.parse((await json<{ totpURI: string }>(enabled)).totpURI) as OTPAuth.TOTP;
    const confirmed = await authRequest(
      app.services,
      "/two-factor/verify-totp",
      { code: totp.generate() },
      { cookie: account.cookie, address },
    );
    expect(confirmed.status).toBe(200);
    const { answer } = await signInWith(key);
    expect(answer.status).toBe(200);
    expect(await sessionOf(cookieFrom(answer))).toBe(account.id);
  });

  it("refuses a key that did not verify its user, an answer made for another origin or relying party", async () => {
    const account = await signUp(app.services, "passkey-refused");
    const unverifiedAtRegistration = await register(account, createSoftAuthenticator({ ...RP, userVerified: false }));
    expect(unverifiedAtRegistration.status).toBe(401);
    expect(await storedKeys(account.id)).toHaveLength(0);

    const key = createSoftAuthenticator(RP);
    expect((await register(account, key)).status).toBe(200);
    for (const overrides of [
      { userVerified: false },
      { origin: "https://optstuff.example.net" },
      { rpId: "example.net" },
    ]) {
      const { answer } = await signInWith(key, overrides);
      expect(answer.status, JSON.stringify(overrides)).toBeGreaterThanOrEqual(400);
      expect(cookieFrom(answer)).not.toContain("session_token");
    }
    expect(await entries(account.id, "account.signed_in")).toBe(1); // the sign-up's only
  });

  it("once removed, signs in no more; another account cannot remove it", async () => {
    const account = await signUp(app.services, "passkey-removed");
    const other = await signUp(app.services, "passkey-other");
    const key = createSoftAuthenticator(RP);
    expect((await register(account, key)).status).toBe(200);
    const [stored] = await storedKeys(account.id);
    const byOther = await authRequest(
      app.services,
      "/passkey/delete-passkey",
      { id: stored!.id },
      { cookie: other.cookie },
    );
    expect(byOther.status).toBeGreaterThanOrEqual(400);
    expect(await storedKeys(account.id)).toHaveLength(1);
    expect(await entries(other.id, "account.passkey_removed")).toBe(0);

    const removed = await authRequest(
      app.services,
      "/passkey/delete-passkey",
      { id: stored!.id },
      { cookie: account.cookie },
    );
    expect(removed.status).toBe(200);
    expect(await entries(account.id, "account.passkey_removed")).toBe(1);
    const { answer } = await signInWith(key);
    expect(answer.status).toBe(401);
    expect(await json<{ code: string }>(answer)).toMatchObject({ code: "PASSKEY_NOT_FOUND" });
  });

  it("keeps at most ten per account, names bounded, and makes no second session", async () => {
    expect(PASSKEYS_PER_ACCOUNT).toBe(10); // the name says ten
    const account = await signUp(app.services, "passkey-many");
    const tooLong = await register(account, createSoftAuthenticator(RP), { password: PASSWORD, name: "x".repeat(81) });
    expect(tooLong.status).toBe(400);
    const withSession = await register(account, createSoftAuthenticator(RP), {
      password: PASSWORD,
      createSession: true,
    });
    expect(withSession.status).toBe(400);
    for (let i = 0; i < PASSKEYS_PER_ACCOUNT; i++)
      expect(
        (await register(account, createSoftAuthenticator(RP), { password: PASSWORD, name: `key ${i}` })).status,
      ).toBe(200);
    const past = await register(account, createSoftAuthenticator(RP));
    expect(past.status).toBe(400);
    expect(await json<{ code: string }>(past)).toMatchObject({ code: "TOO_MANY_PASSKEYS" });
    expect(await storedKeys(account.id)).toHaveLength(PASSKEYS_PER_ACCOUNT);
  });
});

import { and, eq } from "drizzle-orm";
import { OAuth2Server, type MutableToken } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, teamMembers, teams, user as users } from "@/server/db/schema";
import { createAuthRouteHandler } from "@/server/http/auth-route";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createTestApp, type TestApp } from "../../support/app";
import { authRequest, cookieFrom, DASHBOARD_ORIGIN, randomAddress, signUp } from "../../support/dashboard";

/**
 * Single sign-on against a real OpenID Connect provider on loopback (oauth2-mock-server: discovery,
 * keys, PKCE, signed ID tokens), through the app's own auth route as a browser would go: the button's
 * POST, the provider's redirect, the callback. Each test shapes the next ID token: a new address joins
 * the configured team with its role; the worst answers (another audience, an expired token, a forged
 * signature, an address the provider has not verified, a domain not allowed, a client's own ID token)
 * sign nobody in and make nothing.
 */
let idp: OAuth2Server;
let app: TestApp;
const CLIENT_ID = "optstuff-dashboard";

beforeAll(async () => {
  idp = new OAuth2Server();
  await idp.issuer.keys.generate("RS256");
  await idp.start(0, "127.0.0.1");
  idp.issuer.url = `http://127.0.0.1:${idp.address().port}`;
  app = await createTestApp({
    env: {
      OPTSTUFF_OIDC_ISSUER: idp.issuer.url,
      OPTSTUFF_OIDC_CLIENT_ID: CLIENT_ID,
      OPTSTUFF_OIDC_CLIENT_SECRET: "a client secret",
      OPTSTUFF_OIDC_EMAIL_DOMAINS: "corp.example, example.com",
      OPTSTUFF_OIDC_TEAM: "acme",
      OPTSTUFF_OIDC_ROLE: "admin",
    },
  });
  // The instance's first account owns it and adopts the team made before it: single sign-on comes after.
  await signUp(app.services, "owner");
}, 60_000);
afterAll(async () => {
  await app?.close();
  await idp?.stop();
});

/** Shapes the next ID token the provider signs (the access token passes through the same event first). */
function nextIdToken(edit: (payload: MutableToken["payload"]) => void) {
  const shape = (token: MutableToken) => {
    if ("scope" in token.payload) return;
    idp.service.off("beforeTokenSigning", shape);
    edit(token.payload);
  };
  idp.service.on("beforeTokenSigning", shape);
}

/** The button, the provider's page (which answers at once), and the callback: where the browser lands. */
async function signInWithProvider(): Promise<{ location: string; cookie: string }> {
  const started = await authRequest(app.services, "/sign-in/social", {
    provider: "oidc",
    callbackURL: "/",
    errorCallbackURL: "/sign-in",
  });
  expect(started.status).toBe(200);
  const { url } = (await started.json()) as { url: string };
  expect(url.startsWith(`${idp.issuer.url}/authorize?`)).toBe(true);
  const authorized = await fetch(url, { redirect: "manual" });
  const callback = authorized.headers.get("location")!;
  expect(callback.startsWith(`${DASHBOARD_ORIGIN}/api/auth/callback/oidc?`)).toBe(true);
  const handler = createAuthRouteHandler(async () => app.services);
  const landed = await handler(
    new Request(callback, { headers: { cookie: cookieFrom(started), [PEER_ADDRESS_HEADER]: randomAddress() } }),
  );
  expect(landed.status).toBe(302);
  return { location: landed.headers.get("location")!, cookie: cookieFrom(landed) };
}

const accountOf = async (email: string) =>
  (await app.services.database.db.select().from(users).where(eq(users.email, email)))[0] ?? null;
const sessionOf = async (cookie: string) =>
  (await (await app.services.dashboard.auth()).api.getSession({ headers: new Headers({ cookie }) }))?.user.email ??
  null;

describe("single sign-on", () => {
  it("makes a verified address at an allowed domain an account, in the configured team with its role", async () => {
    nextIdToken((claims) =>
      Object.assign(claims, { sub: "alex", email: "alex@corp.example", email_verified: true, name: "Alex" }),
    );
    const { location, cookie } = await signInWithProvider();
    expect(location).toBe("/");
    expect(await sessionOf(cookie)).toBe("alex@corp.example");
    const account = await accountOf("alex@corp.example");
    const [membership] = await app.services.database.db
      .select({ role: teamMembers.role, slug: teams.slug })
      .from(teamMembers)
      .innerJoin(teams, eq(teams.id, teamMembers.teamId))
      .where(eq(teamMembers.userId, account!.id));
    expect(membership).toEqual({ role: "admin", slug: "acme" });
    const [joined] = await app.services.database.db
      .select({ action: auditLog.action, changes: auditLog.changes })
      .from(auditLog)
      .where(and(eq(auditLog.targetId, account!.id), eq(auditLog.action, "member.provisioned")));
    expect(joined).toEqual({ action: "member.provisioned", changes: { role: { from: null, to: "admin" } } });

    // Signing in again is the same account, not a second one.
    nextIdToken((claims) => Object.assign(claims, { sub: "alex", email: "alex@corp.example", email_verified: true }));
    const again = await signInWithProvider();
    expect(await sessionOf(again.cookie)).toBe("alex@corp.example");
    expect(
      (await app.services.database.db.select().from(users).where(eq(users.email, "alex@corp.example"))).length,
    ).toBe(1);
  });

  it.each([
    ["another audience", { aud: "someone-else" }, "unable_to_get_user_info"],
    [
      "an expired token",
      { exp: Math.floor(Date.now() / 1000) - 600, iat: Math.floor(Date.now() / 1000) - 1200 },
      "unable_to_get_user_info",
    ],
    ["another issuer", { iss: "http://127.0.0.1:1" }, "unable_to_get_user_info"],
    ["an address the provider has not verified", { email_verified: false }, "email_not_verified"],
    ["no word on verification", { email_verified: undefined }, "email_not_verified"],
  ])("signs nobody in with %s, and makes nothing", async (_name, claims, error) => {
    const email = `worst-${Math.random().toString(36).slice(2)}@corp.example`;
    nextIdToken((payload) => Object.assign(payload, { sub: email, email, email_verified: true }, claims));
    const { location, cookie } = await signInWithProvider();
    expect(new URL(location, DASHBOARD_ORIGIN).pathname).toBe("/sign-in");
    expect(new URL(location, DASHBOARD_ORIGIN).searchParams.get("error")).toBe(error);
    expect(await sessionOf(cookie)).toBeNull();
    expect(await accountOf(email)).toBeNull();
  });

  it("refuses a domain that is not allowed, and a token signed by another key", async () => {
    nextIdToken((claims) =>
      Object.assign(claims, { sub: "mallory", email: "mallory@elsewhere.example", email_verified: true }),
    );
    const outside = await signInWithProvider();
    expect(new URL(outside.location, DASHBOARD_ORIGIN).searchParams.get("error")).toBe("email_domain_not_allowed");
    expect(await accountOf("mallory@elsewhere.example")).toBeNull();

    // The provider's keys rotated to one the discovery's JWKS does not publish.
    const forger = new OAuth2Server();
    await forger.issuer.keys.generate("RS256");
    forger.issuer.url = idp.issuer.url;
    const forged = await forger.issuer.buildToken({
      scopesOrTransform: (_header, payload) =>
        Object.assign(payload, {
          iss: idp.issuer.url,
          aud: CLIENT_ID,
          sub: "forged",
          email: "forged@corp.example",
          email_verified: true,
        }),
    });
    idp.service.once("beforeResponse", (response: { body: Record<string, unknown> }) => {
      if ("id_token" in response.body) response.body.id_token = forged;
    });
    const signedElsewhere = await signInWithProvider();
    expect(new URL(signedElsewhere.location, DASHBOARD_ORIGIN).searchParams.get("error")).toBe(
      "unable_to_get_user_info",
    );
    expect(await accountOf("forged@corp.example")).toBeNull();
  });

  it("takes no ID token from a client: sign-in goes through the provider's page", async () => {
    const token = await idp.issuer.buildToken({
      scopesOrTransform: (_header, payload) =>
        Object.assign(payload, { aud: CLIENT_ID, sub: "direct", email: "direct@corp.example", email_verified: true }),
    });
    const posted = await authRequest(app.services, "/sign-in/social", { provider: "oidc", idToken: { token } });
    expect(posted.status).toBe(400);
    expect(await accountOf("direct@corp.example")).toBeNull();
  });

  it("refuses an account with a second factor, which signs in with its password and code instead", async () => {
    const guarded = await signUp(app.services, "sso-guarded");
    // Verified here too, so the provider's sign-in would be linked to it: the second factor is what refuses.
    await app.services.database.db
      .update(users)
      .set({ twoFactorEnabled: true, emailVerified: true })
      .where(eq(users.id, guarded.id));
    nextIdToken((claims) => Object.assign(claims, { sub: "guarded", email: guarded.email, email_verified: true }));
    const { location, cookie } = await signInWithProvider();
    expect(new URL(location, DASHBOARD_ORIGIN).searchParams.get("error")).toBe("unable_to_create_session");
    expect(await sessionOf(cookie)).toBeNull();
  });
});

import { OAuth2Server, type MutableToken } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, it } from "vitest";
import { openBrowser, screenshot, startServedApp, type ServedApp } from "../support/browser";
import { expectAccessible } from "../support/accessibility";
import { need } from "../support/services";

/**
 * Single sign-on in Chromium against the built app and a real OpenID Connect provider on loopback
 * (oauth2-mock-server, which answers its authorize page at once): the button on the sign-in page at
 * 375 px signs a verified address in, and an address at a domain not allowed comes back to the
 * sign-in page at 1280 px, told why in words. Axe and no sideways scroll on each page.
 */
const chromium = need("chromium");

describe.skipIf(chromium.skip)(chromium.title("single sign-on in Chromium"), () => {
  let idp: OAuth2Server;
  let app: ServedApp;
  let phone: Awaited<ReturnType<typeof openBrowser>>;
  let desktop: Awaited<ReturnType<typeof openBrowser>>;

  beforeAll(async () => {
    idp = new OAuth2Server();
    await idp.issuer.keys.generate("RS256");
    await idp.start(0, "127.0.0.1");
    idp.issuer.url = `http://127.0.0.1:${idp.address().port}`;
    app = await startServedApp({
      OPTSTUFF_OIDC_ISSUER: idp.issuer.url,
      OPTSTUFF_OIDC_CLIENT_ID: "optstuff-dashboard",
      OPTSTUFF_OIDC_CLIENT_SECRET: "a client secret",
      OPTSTUFF_OIDC_EMAIL_DOMAINS: "corp.example",
    });
    phone = await openBrowser({ width: 375, height: 800 });
    desktop = await openBrowser();
  });
  afterAll(async () => {
    await phone?.close();
    await desktop?.close();
    await app?.stop();
    await idp?.stop();
  });

  function nextIdToken(claims: Record<string, unknown>) {
    const shape = (token: MutableToken) => {
      if ("scope" in token.payload) return;
      idp.service.off("beforeTokenSigning", shape);
      Object.assign(token.payload, claims);
    };
    idp.service.on("beforeTokenSigning", shape);
  }

  it("signs a verified address in with the sign-in page's button, on a phone", async () => {
    const page = phone.page;
    await page.goto(`${app.baseUrl}/sign-in`);
    const button = page.getByRole("button", { name: "Continue with single sign-on" });
    await button.waitFor();
    await expectAccessible(page, "sign-in with single sign-on at 375 px");
    await screenshot(page, "sso-01-sign-in-phone");
    nextIdToken({ sub: "robin", email: "robin@corp.example", email_verified: true, name: "Robin" });
    await button.click();
    // The instance's first account: it owns the instance and names its team first.
    await page.waitForURL(/\/onboarding/);
    await page.getByLabel("Team name").waitFor();
    await expectAccessible(page, "onboarding after single sign-on");
  });

  it("brings an address at a domain not allowed back to the sign-in page, told why", async () => {
    const page = desktop.page;
    await page.goto(`${app.baseUrl}/sign-in`);
    nextIdToken({ sub: "mallory", email: "mallory@elsewhere.example", email_verified: true });
    await page.getByRole("button", { name: "Continue with single sign-on" }).click();
    await page.waitForURL(/\/sign-in\?.*error=email_domain_not_allowed/);
    await page
      .getByRole("alert")
      .filter({ hasText: "Your e-mail address's domain may not sign in to this server" })
      .waitFor();
    await expectAccessible(page, "sign-in, refused domain");
    await screenshot(page, "sso-02-refused");
  });
});

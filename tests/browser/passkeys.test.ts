import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible } from "../support/accessibility";
import { signUpInBrowser } from "../support/browser-accounts";
import { openBrowser, screenshot, startServedApp, type ServedApp } from "../support/browser";
import { need } from "../support/services";

/**
 * Passkeys end to end in Chromium against the built app, reached as `localhost` (a relying party cannot
 * be an IP address), with Chromium's virtual authenticator (CDP `WebAuthn`): added on the account page
 * at 1280 px (a wrong password refused), then copied to the phone's authenticator as a synced passkey
 * would be, signing in there at 375 px with no password; once removed, refused in words. Axe on each
 * step; nothing wider than the screen.
 */
const chromium = need("chromium");

/** A platform authenticator that verifies its user (a fingerprint) without asking anyone. */
async function virtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

describe.skipIf(chromium.skip)(chromium.title("passkeys in Chromium"), () => {
  let app: ServedApp;
  let desktop: Awaited<ReturnType<typeof openBrowser>>;
  let phone: Awaited<ReturnType<typeof openBrowser>>;
  let laptopKey: Awaited<ReturnType<typeof virtualAuthenticator>>;
  let phoneKey: Awaited<ReturnType<typeof virtualAuthenticator>>;
  const email = `pat-${Date.now().toString(36)}@example.com`;
  const password = "a long enough password";

  beforeAll(async () => {
    app = await startServedApp({}, undefined, "npm start", "localhost");
    desktop = await openBrowser();
    phone = await openBrowser({ width: 375, height: 800 });
    laptopKey = await virtualAuthenticator(desktop.context, desktop.page);
    phoneKey = await virtualAuthenticator(phone.context, phone.page);
  });
  afterAll(async () => {
    await desktop?.close();
    await phone?.close();
    await app?.stop();
  });

  const go = (page: Page, path: string) => page.goto(`${app.baseUrl}${path}`);
  const passkeysCard = (page: Page) =>
    page.locator("section", { has: page.getByRole("heading", { name: "Passkeys" }) });

  it("is added on the account page with the password: a wrong one refused, the new one listed", async () => {
    const page = desktop.page;
    await signUpInBrowser(page, app.baseUrl, { name: "Pat", email, password });
    await go(page, "/account");
    const card = passkeysCard(page);
    await card.getByText("No passkeys yet.").waitFor();
    await card.getByLabel("Name (optional)").fill("Laptop");
    await card.getByLabel("Your password").fill("not the password");
    await card.getByRole("button", { name: "Add a passkey" }).click();
    await card.getByText("That password is not right").waitFor();
    await card.getByText("No passkeys yet.").waitFor();
    // The device made a key the server refused to keep; dropped, so the one left is the one it keeps.
    const orphan = await laptopKey.cdp.send("WebAuthn.getCredentials", { authenticatorId: laptopKey.authenticatorId });
    expect(orphan.credentials).toHaveLength(1);
    await laptopKey.cdp.send("WebAuthn.clearCredentials", { authenticatorId: laptopKey.authenticatorId });
    await card.getByLabel("Your password").fill(password);
    await card.getByRole("button", { name: "Add a passkey" }).click();
    await card.getByRole("list", { name: "Your passkeys" }).getByText("Laptop").waitFor();
    await expectAccessible(page, "account page with a passkey");
    await screenshot(page, "passkeys-added-1280");
  });

  it("signs in on the phone at 375 px with no password, once the passkey is there (as a synced one is)", async () => {
    const { credentials } = await laptopKey.cdp.send("WebAuthn.getCredentials", {
      authenticatorId: laptopKey.authenticatorId,
    });
    expect(credentials).toHaveLength(1);
    const credential = credentials[0]!;
    await phoneKey.cdp.send("WebAuthn.addCredential", { authenticatorId: phoneKey.authenticatorId, credential });
    const page = phone.page;
    await go(page, "/sign-in");
    await expectAccessible(page, "sign-in page with the passkey button");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
    await go(page, "/account");
    await page.getByText(`Signed in as ${email}`).waitFor();
    await screenshot(page, "passkeys-signed-in-375");
  });

  it("once removed on the laptop, no longer signs in, and the phone is told why", async () => {
    const page = desktop.page;
    await go(page, "/account");
    await passkeysCard(page).getByRole("button", { name: "Remove Laptop" }).click();
    await passkeysCard(page).getByText("No passkeys yet.").waitFor();

    const phonePage = phone.page;
    await phonePage.context().clearCookies();
    await go(phonePage, "/sign-in");
    await phonePage.getByRole("button", { name: "Sign in with a passkey" }).click();
    await phonePage.getByText("That passkey is not registered here").waitFor();
    expect(new URL(phonePage.url()).pathname).toBe("/sign-in");
    await expectAccessible(phonePage, "sign-in page refusing a removed passkey");
    await screenshot(phonePage, "passkeys-removed-375");
  });
});

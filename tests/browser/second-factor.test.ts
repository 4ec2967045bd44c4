import type { Page } from "playwright-core";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, screenshot, startServedApp, type ServedApp } from "../support/browser";
import { expectAccessible } from "../support/accessibility";
import { createFirstTeam, signUpInBrowser } from "../support/browser-accounts";
import { need } from "../support/services";

/**
 * A second factor end to end in Chromium against the built app: set up on the account page (the QR
 * code, the key as text, a wrong code refused, recovery codes shown once), sign-in with the app's code
 * at 1280 px and with a recovery code at 375 px (once only), and a team that requires one sending its
 * owner, who turned theirs off, to the account page and back. Axe on each step; nothing wider than the
 * screen. Codes come from an authenticator library of its own (otpauth) fed the key the page shows.
 */
const chromium = need("chromium");

/** better-auth allows three /two-factor/ calls per 10 s per address; every browser here is 127.0.0.1. */
const pastTwoFactorWindow = () => new Promise((resolve) => setTimeout(resolve, 10_500));

describe.skipIf(chromium.skip)(chromium.title("a second factor in Chromium"), () => {
  let app: ServedApp;
  let desktop: Awaited<ReturnType<typeof openBrowser>>;
  let phone: Awaited<ReturnType<typeof openBrowser>>;
  const stamp = Date.now().toString(36);
  const email = `dana-${stamp}@example.com`;
  const password = "a long enough password";
  const teamSlug = `dana-${stamp}`;
  let totp: OTPAuth.TOTP;
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    app = await startServedApp();
    desktop = await openBrowser();
    phone = await openBrowser({ width: 375, height: 800 });
  });
  afterAll(async () => {
    await desktop?.close();
    await phone?.close();
    await app?.stop();
  });

  const go = (page: Page, path: string) => page.goto(`${app.baseUrl}${path}`);
  // The account page asks for the password in its passkeys card too.
  const factorCard = (page: Page) =>
    page.locator("section", { has: page.getByRole("heading", { name: "Second factor" }) });
  const copied = async (page: Page, label: string) => (await page.getByTestId(`copy-${label}`).textContent()) ?? "";
  async function signInWithPassword(page: Page) {
    await go(page, `/sign-in?next=${encodeURIComponent(`/t/${teamSlug}`)}`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }
  async function signOut(page: Page) {
    await go(page, `/t/${teamSlug}`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in/);
  }

  it("is set up on the account page: QR code and key, a wrong password and a wrong code refused, recovery codes shown once", async () => {
    const page = desktop.page;
    await signUpInBrowser(page, app.baseUrl, { name: "Dana", email, password });
    await createFirstTeam(page, { name: `Dana ${stamp}`, slug: teamSlug });

    await page.getByRole("link", { name: "Account" }).click();
    await page.waitForURL(/\/account$/);
    await page.getByText("Off: your password alone signs you in").waitFor();
    await expectAccessible(page, "account, factor off");
    await factorCard(page).getByLabel("Your password").fill("not my password");
    await page.getByRole("button", { name: "Set up a second factor" }).click();
    await page.getByRole("alert").filter({ hasText: "That password is not right" }).waitFor();

    await factorCard(page).getByLabel("Your password").fill(password);
    await page.getByRole("button", { name: "Set up a second factor" }).click();
    const qr = page.getByRole("img", { name: "QR code to add OptStuff to an authenticator app" });
    await qr.waitFor();
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth >= 192)).toBe(true);
    const key = (await copied(page, "Or type this key into the app")).replaceAll(" ", "");
    expect(key).toMatch(/^[A-Z2-7]{32,}$/);
    totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(key), issuer: "OptStuff", label: email });
    await expectAccessible(page, "account, setting up");
    await screenshot(page, "second-factor-01-scan");

    await page.getByLabel("Code from the app").fill("000000");
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await page.getByRole("alert").filter({ hasText: "That code is not right" }).waitFor();
    await page.getByLabel("Code from the app").fill(totp.generate());
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await page.getByText("Save these 10 recovery codes").waitFor();
    recoveryCodes = (await copied(page, "Recovery codes")).split("\n").filter(Boolean);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    await expectAccessible(page, "account, recovery codes");
    await screenshot(page, "second-factor-02-codes");
    await page.getByRole("button", { name: "I saved them" }).click();
    await page.getByText("On: sign-in asks for a code from your authenticator app").waitFor();
    // Shown once: the page read again has no codes on it.
    await page.reload();
    await page.getByText("On: sign-in asks for a code").waitFor();
    expect(await page.getByTestId("copy-Recovery codes").count()).toBe(0);
  });

  it("asks for the app's code after the password at 1280 px: a wrong one refused, the right one signs in", async () => {
    const page = desktop.page;
    await pastTwoFactorWindow();
    await signOut(page);
    await signInWithPassword(page);
    const code = page.getByLabel("Code from your authenticator app");
    await code.waitFor();
    // The password alone made no session: the team's page still sends to sign-in.
    const signedOut = await desktop.context.newPage();
    await signedOut.goto(`${app.baseUrl}/t/${teamSlug}`);
    await signedOut.waitForURL(/\/sign-in/);
    await signedOut.close();
    await expectAccessible(page, "sign-in, code step");
    await code.fill("000000");
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "That code is not right" }).waitFor();
    await code.fill(totp.generate());
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}$`));
  });

  it("takes a recovery code instead on a phone, once", async () => {
    const page = phone.page;
    await pastTwoFactorWindow();
    await signInWithPassword(page);
    await page.getByRole("button", { name: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0]!);
    await expectAccessible(page, "sign-in, recovery code at 375 px");
    await screenshot(page, "second-factor-03-recovery-phone");
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}$`));
    await expectAccessible(page, "team page at 375 px");

    await signOut(page);
    await signInWithPassword(page);
    await page.getByRole("button", { name: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0]!);
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "That recovery code is not right, or it was used before" })
      .waitFor();
  });

  it("a team that requires one sends its owner, who turned theirs off, to the account page and back", async () => {
    const page = desktop.page;
    await go(page, `/t/${teamSlug}/settings`);
    const required = page.getByLabel("Members must use a second factor");
    await required.check();
    await page
      .locator("section", { has: page.getByRole("heading", { name: "Security" }) })
      .getByRole("button", { name: "Save" })
      .click();
    await page.getByTestId("toast").getByText("Security settings saved").waitFor();
    await expectAccessible(page, "team settings");

    await pastTwoFactorWindow();
    await go(page, "/account");
    await page.getByRole("button", { name: "Turn off…" }).click();
    await factorCard(page).getByLabel("Your password").fill(password);
    await page.getByRole("button", { name: "Turn off the second factor" }).click();
    await page.getByText("Off: your password alone signs you in").waitFor();

    await go(page, `/t/${teamSlug}/settings`);
    await page.waitForURL(/\/account\?required=/);
    await page.getByRole("alert").filter({ hasText: "The team you opened requires a second factor" }).waitFor();
    await expectAccessible(page, "account, required by the team");
    await screenshot(page, "second-factor-04-required");

    await pastTwoFactorWindow();
    await factorCard(page).getByLabel("Your password").fill(password);
    await page.getByRole("button", { name: "Set up a second factor" }).click();
    const key = (await copied(page, "Or type this key into the app")).replaceAll(" ", "");
    const renewed = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(key) });
    await page.getByLabel("Code from the app").fill(renewed.generate());
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await page.getByRole("button", { name: "I saved them" }).click();
    await page.getByRole("link", { name: "go back to it" }).click();
    // Back to the team, whose pages open again.
    await page.waitForURL(new RegExp(`/t/${teamSlug}$`));
    await go(page, `/t/${teamSlug}/settings`);
    expect(await page.getByLabel("Members must use a second factor").isChecked()).toBe(true);
  });
});

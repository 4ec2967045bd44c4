import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapProject, openBrowser, screenshot, startServedApp, type ServedApp } from "../support/browser";
import { need } from "../support/services";

/**
 * Where a new account lands, in Chromium against the built app set up as the quickstart sets it up
 * (`optstuff bootstrap` made the `demo` team, project and key before anyone signed up): the first
 * account in the demo team, not in an empty team of its own; an invited account at its invitation,
 * with no team made on the way; declining it leads to naming a team of its own. Needs `npm run build`.
 */
const chromium = need("chromium");

describe.skipIf(chromium.skip)(chromium.title("a new account's first pages in Chromium"), () => {
  let app: ServedApp;
  let owner: Awaited<ReturnType<typeof openBrowser>>;
  let guest: Awaited<ReturnType<typeof openBrowser>>;
  const password = "a long enough password";
  const stamp = Date.now().toString(36);
  const guestEmail = `guest-${stamp}@example.com`;
  let invitationLink = "";

  beforeAll(async () => {
    app = await startServedApp({}, (dataDir) => {
      bootstrapProject(dataDir);
    });
    owner = await openBrowser();
    guest = await openBrowser({ width: 375, height: 800 });
  });

  afterAll(async () => {
    await owner?.close();
    await guest?.close();
    await app?.stop();
  });

  const go = (page: Page, path: string) => page.goto(`${app.baseUrl}${path}`);
  /** The team switcher's entries: the teams the account belongs to, then "+ New team…". */
  const teamsOf = (page: Page) => page.locator("header select option").allTextContents();

  it("the first account lands in the quickstart's demo team, with its project, and no empty team of its own", async () => {
    const page = owner.page;
    await go(page, "/sign-up");
    await page.getByText("it becomes the owner of the instance").waitFor();
    await page.getByLabel("Name").fill("Olive");
    await page.getByLabel("Email").fill(`olive-${stamp}@example.com`);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(new RegExp(`${app.baseUrl}/t/demo$`));
    await page.locator('main a[href="/t/demo/p/demo"]').waitFor();
    expect(await teamsOf(page)).toEqual(["demo", "+ New team…"]);
    await screenshot(page, "first-01-owner-in-demo");
    // The home page sends it there too.
    await go(page, "/");
    await page.waitForURL(new RegExp(`${app.baseUrl}/t/demo$`));
  });

  it("an invited account lands on its invitation, with no team made on the way", async () => {
    const page = owner.page;
    await go(page, "/t/demo/settings");
    await page.getByRole("heading", { name: "Invitations" }).waitFor();
    await page.getByLabel("Email").fill(guestEmail);
    await page.getByRole("button", { name: "Invite" }).click();
    invitationLink = (await page.getByTestId("copy-Invitation link").textContent())!;

    const phone = guest.page;
    await phone.goto(invitationLink);
    await phone.getByRole("link", { name: "Create an account" }).click();
    expect(await phone.getByLabel("Email").inputValue()).toBe(guestEmail);
    await phone.getByLabel("Name").fill("Guest");
    await phone.getByLabel("Password").fill(password);
    await phone.getByRole("button", { name: "Create account" }).click();
    await phone.waitForURL(/\/invite\/[A-Za-z0-9_-]+$/);
    await phone.getByText("You are invited to join").waitFor();
    expect(await phone.getByRole("button", { name: "Accept invitation" }).isEnabled()).toBe(true);
    expect(await phone.getByRole("button", { name: "Decline" }).isEnabled()).toBe(true);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(phone, "first-02-invited-at-invitation-375px");
  });

  it("declining goes on to name a team of its own, and the inviting team's admins see it declined", async () => {
    const phone = guest.page;
    await phone.getByRole("button", { name: "Decline" }).click();
    await phone.waitForURL(/\/onboarding$/);
    await phone.getByLabel("Team name").fill(`Guest ${stamp}`);
    await phone.getByText("Available").waitFor();
    await screenshot(phone, "first-03-declined-onboarding-375px");
    await phone.getByRole("button", { name: "Continue" }).click();
    await phone.waitForURL(new RegExp(`/t/guest-${stamp}$`));
    await phone.getByText("No projects yet").waitFor();
    expect(await teamsOf(phone)).toEqual([`Guest ${stamp}`, "+ New team…"]);
    // The link is spent: it says so, and offers no button.
    await phone.goto(invitationLink);
    await phone.getByText("This invitation is revoked").waitFor();
    expect(await phone.getByRole("button", { name: "Accept invitation" }).count()).toBe(0);

    const page = owner.page;
    await go(page, "/t/demo/settings");
    await page.getByText("No pending invitations.").waitFor();
    await go(page, "/t/demo/audit");
    await expect.poll(() => page.getByTestId("audit-log").textContent()).toContain("declined an invitation");
    expect(await page.getByTestId("audit-log").textContent()).toContain(guestEmail);
  });
});

import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible } from "../support/accessibility";
import { createFirstTeam, signUpInBrowser } from "../support/browser-accounts";
import { openBrowser, screenshot, startServedApp, type ServedApp } from "../support/browser";
import { need } from "../support/services";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * A team's webhooks in Chromium against the built app, with a receiver on loopback: added at 1280 px
 * (its signing secret shown once, read from the page and checked against what the receiver got), a
 * test sent and seen in the delivery log; at 375 px a malformed address refused at its field, a
 * refused test said in words, and a redelivery once the receiver is back. Axe on each step; nothing
 * wider than the screen.
 */
const chromium = need("chromium");

describe.skipIf(chromium.skip)(chromium.title("webhooks in Chromium"), () => {
  let app: ServedApp;
  let desktop: Awaited<ReturnType<typeof openBrowser>>;
  let phone: Awaited<ReturnType<typeof openBrowser>>;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const stamp = Date.now().toString(36);
  const email = `wren-${stamp}@example.com`;
  const password = "a long enough password";
  const teamSlug = `wren-${stamp}`;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app = await startServedApp({ OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "1" });
    desktop = await openBrowser();
    phone = await openBrowser({ width: 375, height: 800 });
  });
  afterAll(async () => {
    await desktop?.close();
    await phone?.close();
    await app?.stop();
    await receiver?.close();
  });

  const go = (page: Page, path: string) => page.goto(`${app.baseUrl}${path}`);
  const card = (page: Page) => page.locator("section", { has: page.getByRole("heading", { name: "Webhooks" }) });

  it("is added at 1280 px with its secret shown once; a test is signed with it and shown in the log", async () => {
    const page = desktop.page;
    await signUpInBrowser(page, app.baseUrl, { name: "Wren", email, password });
    await createFirstTeam(page, { name: `Wren ${stamp}`, slug: teamSlug });

    await go(page, `/t/${teamSlug}/settings`);
    const hooks = card(page);
    await hooks.getByText("No webhooks yet.").waitFor();
    await hooks.getByRole("button", { name: "Add a webhook" }).click();
    await hooks.getByLabel("Receiver URL").fill(receiver.url("/hooks/T0/B0/secret-token"));
    await hooks.getByLabel("A project's requests are failing").check();
    await hooks.getByText(/Audit actions \(0 chosen\)/).click();
    await hooks.getByLabel(/created an API key/).check();
    await hooks.getByText(/Audit actions \(1 chosen\)/).waitFor();
    await expectAccessible(page, "team settings, adding a webhook");
    await hooks.getByRole("button", { name: "Add the webhook" }).click();
    const secret = (await page.getByTestId("copy-Signing secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await expectAccessible(page, "team settings, a webhook's secret shown once");
    await screenshot(page, "webhooks-01-secret-1280");
    await hooks.getByRole("button", { name: "I copied it" }).click();
    await expect(page.getByTestId("copy-Signing secret").count()).resolves.toBe(0);
    // The list shows the address's origin only: a Slack-like token stays out of the page.
    await hooks.getByText(`${new URL(receiver.url()).origin}/…`).waitFor();
    expect(await page.content()).not.toContain("secret-token");

    const before = receiver.received.length;
    await hooks.getByRole("button", { name: "Send test" }).click();
    await page.getByTestId("toast").getByText("Delivered (200)").waitFor();
    await hooks.getByRole("list", { name: "Deliveries" }).getByText("Delivered: the receiver answered 200").waitFor();
    const got = receiver.received[before]!;
    const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as { type: string };
    expect(payload.type).toBe("webhook.test");
    await expectAccessible(page, "team settings, a webhook's deliveries");
    await screenshot(page, "webhooks-02-log-1280");
  });

  it("at 375 px refuses a malformed address at its field, says a refused test in words, and redelivers it", async () => {
    const page = phone.page;
    await go(page, `/sign-in?next=${encodeURIComponent(`/t/${teamSlug}/settings`)}`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}/settings$`));
    const hooks = card(page);
    await hooks.getByRole("button", { name: "Add a webhook" }).click();
    await hooks.getByLabel("Receiver URL").fill("ftp://example.com/hook");
    await hooks.getByLabel("An API key expires soon").check();
    await hooks.getByRole("button", { name: "Add the webhook" }).click();
    await hooks.getByText("The URL must start with https:// or http://").waitFor();
    await expectAccessible(page, "team settings at 375 px, a malformed webhook address");

    receiver.answer(500);
    await hooks.getByRole("button", { name: "Send test" }).click();
    await page.getByTestId("toast").getByText("Not delivered: the receiver answered 500").waitFor();
    const log = hooks.getByRole("list", { name: "Deliveries" });
    await log.getByText(/the receiver answered 500; next try/).waitFor();
    await screenshot(page, "webhooks-03-refused-375");
    receiver.answer(200);
    await log
      .getByRole("button", { name: /Redeliver webhook\.test/ })
      .first()
      .click();
    await page.getByTestId("toast").getByText("Delivered (200)").waitFor();
    await log.getByText("Delivered: the receiver answered 200").first().waitFor();
    await expectAccessible(page, "team settings at 375 px, a webhook redelivered");
    await screenshot(page, "webhooks-04-redelivered-375");
  });
});

import type { Page } from "playwright-core";
import { expect } from "vitest";

/** Signs up through the sign-up page; answers on the onboarding page the new account lands on. */
export async function signUpInBrowser(
  page: Page,
  baseUrl: string,
  account: { name: string; email: string; password: string },
): Promise<void> {
  await page.goto(`${baseUrl}/sign-up`);
  await page.getByLabel("Name").fill(account.name);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/onboarding/);
}

/** On the onboarding page: names the first team, waits for its slug to be free, and lands on its home. */
export async function createFirstTeam(page: Page, team: { name: string; slug: string }): Promise<void> {
  await page.getByLabel("Team name").fill(team.name);
  await expect.poll(() => page.getByLabel("Team slug").inputValue()).toBe(team.slug);
  await page.getByText("Available").waitFor();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(new RegExp(`/t/${team.slug}$`));
}

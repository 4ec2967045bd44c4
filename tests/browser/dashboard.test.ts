import { readFileSync } from "node:fs";
import type { ConsoleMessage, Page, Route } from "playwright-core";
import AxeBuilder from "@axe-core/playwright";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, screenshot, startServedApp, type ServedApp } from "../support/browser";
import { pixelBombPng } from "../support/hostile";
import { serveBytes, startOrigin, type Origin } from "../support/origin";
import { buildSignedUrl } from "../support/signed-url";
import { startS3, type LocalS3 } from "../support/s3";
import { need } from "../support/services";

/**
 * The dashboard end to end in Chromium against `next start` on the embedded default: sign up (the
 * first account; invite-only, so the sign-up page is closed to an uninvited visitor after it),
 * onboarding, a project with a source host, a key, a signed URL previewed in the tester, usage after
 * a flush, revocation, and an invited second user who signs up from the link, lands on the
 * invitation (no team made on the way), joins and sees the project. Screenshots go to artifacts/screenshots.
 */
const chromium = need("chromium");

describe.skipIf(chromium.skip)(chromium.title("the dashboard in Chromium"), () => {
  let app: ServedApp;
  let origin: Origin;
  let alice: Awaited<ReturnType<typeof openBrowser>>;
  let bob: Awaited<ReturnType<typeof openBrowser>>;
  let s3: LocalS3 | undefined;
  const password = "a long enough password";
  const stamp = Date.now().toString(36);
  const teamSlug = `acme-images-${stamp}`;

  beforeAll(async () => {
    origin = await startOrigin({ "/photo.jpg": serveBytes(readFileSync("demo/photo.jpg"), "image/jpeg") });
    app = await startServedApp({ OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "1" });
    alice = await openBrowser();
    bob = await openBrowser({ width: 375, height: 800 });
  });

  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await app?.stop();
    await origin?.close();
    await s3?.stop();
  });

  const go = (page: Page, path: string) => page.goto(`${app.baseUrl}${path}`);
  /** A project section: by its tab, or on a phone through the section menu. */
  async function tab(page: Page, name: string) {
    const nav = page.getByRole("navigation", { name: "Project" });
    await nav.waitFor();
    const menu = page.getByTestId("section-menu");
    if (await menu.isVisible()) {
      await menu.click();
      await page.getByRole("menuitem", { name, exact: true }).click();
      await expect.poll(() => menu.textContent()).toContain(name);
      return;
    }
    await nav.getByRole("link", { name }).click();
  }

  /**
   * The new key's dialog shows its secret and `.env` block whole: nothing past the dialog's or the
   * screen's edge, nothing to scroll sideways to read or select.
   */
  async function expectSecretShownWhole(page: Page) {
    const dialog = page.getByRole("dialog");
    const frame = (await dialog.boundingBox())!;
    const right = Math.min(frame.x + frame.width, page.viewportSize()!.width);
    for (const label of ["Secret key", ".env"]) {
      const block = dialog.getByTestId(`copy-${label}`);
      expect(await block.evaluate((e) => e.scrollWidth - e.clientWidth), label).toBeLessThanOrEqual(0);
      const box = (await block.boundingBox())!;
      expect(box.x, label).toBeGreaterThanOrEqual(frame.x);
      expect(box.x + box.width, label).toBeLessThanOrEqual(right + 0.5);
    }
  }

  let signedUrl = "";
  let invitationLink = "";
  /** The first key's pair, for URLs the tester did not sign. */
  const firstKey = { publicKey: "", secretKey: "" };

  /** Every page of alice's team and project, with what each must show once its data is in. */
  function dashboardPages(): Array<[name: string, path: string, shows: string]> {
    const project = `/t/${teamSlug}/p/website`;
    return [
      ["team", `/t/${teamSlug}`, "website"],
      ["team-settings", `/t/${teamSlug}/settings`, `alice-${stamp}@example.com`],
      ["team-usage", `/t/${teamSlug}/usage`, "Delivered"],
      ["project", project, origin.host],
      ["keys", `${project}/keys`, "production web"],
      ["developer", `${project}/developer`, "Sign and preview"],
      ["presets", `${project}/presets`, "s_1200x630,g_attention,f_auto,q_75"],
      ["images", `${project}/images`, "Watermark"],
      ["buckets", `${project}/buckets`, "media"],
      ["cache", `${project}/cache`, "Purge"],
      ["settings", `${project}/settings`, origin.host],
      ["usage", `${project}/usage`, "Delivered"],
      // Names only the log's rows show (the filters list actions and people too).
      ["audit", `/t/${teamSlug}/audit`, "Website (website)"],
      ["instance-audit", "/instance/audit", "127.0.0.1"],
    ];
  }

  it("signs up and names the team in onboarding", async () => {
    const page = alice.page;
    await go(page, "/");
    await screenshot(page, "01-landing");
    await page.getByRole("link", { name: "Create an account" }).click();
    // Invite-only (the default): the first account is admitted, and told it will own the instance.
    await page.getByText("it becomes the owner of the instance").waitFor();
    await page.getByLabel("Name").fill("Alice");
    await page.getByLabel("Email").fill(`alice-${stamp}@example.com`);
    await page.getByLabel("Password").fill(password);
    await screenshot(page, "02-sign-up");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/onboarding/);
    await page.getByLabel("Team name").fill(`Acme Images ${stamp}`);
    await expect.poll(() => page.getByLabel("Team slug").inputValue()).toBe(teamSlug);
    await page.getByText("Available").waitFor();
    await screenshot(page, "03-onboarding");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}$`));
    await page.getByText("No projects yet").waitFor();
    // The empty list offers what fills it.
    expect(await page.getByRole("button", { name: "Create the first project" }).count()).toBe(1);
    await screenshot(page, "04-team-empty");
  });

  it("an uninvited visitor finds sign-up closed: the page says it is by invitation, and the server refuses", async () => {
    const page = bob.page; // signed out, no invitation yet
    await go(page, "/sign-up");
    await page.getByRole("heading", { name: "Registration is by invitation" }).waitFor();
    await page.getByText("Ask an admin of your team to invite you").waitFor();
    // No dead form: nothing to fill in or submit.
    expect(await page.getByLabel("Password").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Create account" }).count()).toBe(0);
    await screenshot(page, "02b-sign-up-invite-only");
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL(/\/sign-in/);

    // The page is not the guard: the endpoint refuses a sign-up posted directly.
    const response = await fetch(`${app.baseUrl}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.baseUrl },
      body: JSON.stringify({ name: "Mallory", email: `mallory-${stamp}@example.com`, password }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe("REGISTRATION_CLOSED");
  });

  it("creates a project with a source host and a key whose secret is shown once", async () => {
    const page = alice.page;
    await page.getByRole("button", { name: "New project" }).click();
    // Input the server would refuse is shown at its field (aria-invalid, described by the message), not above
    // the form, and in the server's words: the form checks it with the procedure's own schema, before sending.
    const creates: string[] = [];
    const countCreates = (request: { url(): string }) => {
      if (request.url().includes("project.create")) creates.push(request.url());
    };
    page.on("request", countCreates);
    await page.getByLabel("Project name").fill("x".repeat(201));
    await page.getByRole("button", { name: "Create project" }).click();
    await expect.poll(() => page.getByLabel("Project name").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("alert").count()).toBe(1);
    expect(await page.getByRole("alert").textContent()).toBe("Name must have at most 80 characters");
    expect(creates).toEqual([]);
    page.off("request", countCreates);
    // The worst a field can hold (just under tRPC's 1 MB body cap), sent past the form straight to the
    // served procedure: refused at its field with 400, the message naming the bound, nothing created.
    const worst = await page.evaluate(async (teamSlug) => {
      const response = await fetch("/api/trpc/project.create", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: { teamSlug, name: "x".repeat(900_000), slug: "huge", allowedSourceHosts: [] } }),
      });
      return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
    }, teamSlug);
    expect(worst.status).toBe(400);
    expect(worst.type).toContain("application/json");
    expect(worst.body.length).toBeLessThan(2000);
    expect(JSON.parse(worst.body).error.json.data.fieldErrors).toEqual({
      name: ["Name must have at most 80 characters"],
    });
    await page.getByLabel("Project name").fill("Website");
    await page.getByLabel("Allowed source hosts").fill(origin.host);
    await screenshot(page, "05-new-project");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}/p/website$`));
    await page.getByText(origin.host).waitFor();
    // Headed by the name given, the slug (what its URLs carry) beside it.
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Website");
    await screenshot(page, "06-project-overview");

    await tab(page, "API keys");
    await page.getByText("No keys yet").waitFor();
    await page.getByRole("button", { name: "Create the first key" }).click();
    await page.getByLabel("Key name").fill("production web");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByTestId("copy-Secret key").textContent();
    expect(secret).toMatch(/^sk_/);
    firstKey.secretKey = secret!;
    firstKey.publicKey = (await page.getByTestId("copy-Public key").textContent())!;
    expect(await page.getByTestId("copy-.env").textContent()).toContain(`OPTSTUFF_SECRET_KEY=${secret}`);
    await expectSecretShownWhole(page);
    await screenshot(page, "07-key-created");
    // Shown once: neither Escape nor a click outside loses it, and Done waits until it is stored.
    await page.keyboard.press("Escape");
    await page.mouse.click(4, 4);
    expect(await page.getByTestId("copy-Secret key").textContent()).toBe(secret);
    expect(await page.getByRole("button", { name: "Done" }).isDisabled()).toBe(true);
    await page.getByLabel("I have stored the secret key").check();
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByTestId("api-key-row").getByText("active").waitFor();
    expect(await page.content()).not.toContain(secret!);
    await screenshot(page, "08-keys");

    // Limits: a value no key may have is refused at its field before sending; a pair only the server can
    // judge (per minute above per day) is refused by it, also at the field, and the dialog keeps what was typed.
    await page.getByTestId("api-key-row").getByRole("button", { name: "Edit" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Transforms per minute").fill("0");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByRole("alert").filter({ hasText: "Enter a whole number from 1 to 100,000" }).waitFor();
    expect(await dialog.getByLabel("Transforms per minute").getAttribute("aria-invalid")).toBe("true");
    await dialog.getByLabel("Transforms per minute").fill("120");
    await dialog.getByLabel("Transforms per day").fill("100");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog
      .getByRole("alert")
      .filter({ hasText: "The per-minute limit cannot exceed the per-day limit" })
      .waitFor();
    expect(await dialog.getByLabel("Transforms per minute").inputValue()).toBe("120");
    expect(await dialog.getByLabel("Transforms per minute").getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "08b-key-limits-refused");
    await dialog.getByLabel("Transforms per day").fill("5000");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByTestId("api-key-row").textContent()).toContain("120 transforms/min, 5,000/day");
  });

  it("signs a URL in the tester and the preview loads the transformed image", async () => {
    const page = alice.page;
    await tab(page, "Developer");
    await page.getByLabel("Operations").fill("w_320,f_webp");
    await page.getByLabel("Source").fill(`http://${origin.host}/photo.jpg`);
    await page.getByRole("button", { name: "Sign and preview" }).click();
    await page.getByText("Preview loaded.").waitFor();
    expect(await page.getByTestId("preview-image").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320);
    // Before beside after: the source's own facts and its image without operations.
    await page.getByRole("button", { name: "Compare with the original" }).click();
    const original = page.getByTestId("original");
    await original.waitFor();
    expect(await original.getByTestId("original-facts").textContent()).toBe("JPEG 1600 × 1067, 151 KiB");
    await expect.poll(() => original.getByRole("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1600);
    expect(await original.getByTestId("original-share").textContent()).toMatch(
      /^The answer above is [\d.]+% of the original's bytes\. The picture is the source with no operations/,
    );
    signedUrl = (await page.getByTestId("copy-Signed URL (valid 1 hour)").textContent())!;
    expect(signedUrl.startsWith(`${app.baseUrl}/api/v1/website/`)).toBe(true);
    await screenshot(page, "09-developer-tester");
    // Every snippet signs a source the project allows (its own host), never an example host it refuses.
    for (const label of ["Next.js with @optstuff/client (next/image)", "Next.js", "Node"]) {
      const snippet = (await page.getByTestId(`copy-${label}`).textContent())!;
      expect(snippet, label).toContain(origin.host);
      expect(snippet, label).not.toContain("images.example.com");
    }

    const response = await fetch(signedUrl);
    expect(response.status).toBe(200);
    const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect([meta.format, meta.width]).toEqual(["webp", 320]);
  });

  it("serves images, flushes through the cron route, and shows the exact numbers on the usage pages", async () => {
    const page = alice.page;
    const flush = async () =>
      (await (await app.cron("/api/cron/flush-usage-buffer?safetyLagSeconds=0")).json()) as {
        ok: boolean;
        requests: number;
        bytes: number;
      };
    // Metering follows the response (the request log's batch, ≤ 50 ms, then its commit): let the
    // tester's last request land before counting it as before.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await flush(); // the tester's traffic so far
    expect(before.ok).toBe(true);
    let bytes = 0;
    const refusedIds: string[] = [];
    for (const width of [100, 120, 140, 160]) {
      const response = await fetch(signedUrl.replace("w_320", `w_${width}`)); // operations the signature does not cover
      expect(response.status).toBe(403);
      refusedIds.push(((await response.json()) as { requestId: string }).requestId);
    }
    for (let i = 0; i < 3; i++) {
      const response = await fetch(signedUrl);
      expect(response.status).toBe(200);
      bytes += (await response.arrayBuffer()).byteLength;
    }
    await new Promise((resolve) => setTimeout(resolve, 500)); // metering happens after the response
    const after = await flush();
    expect(after).toMatchObject({ ok: true, requests: 3, bytes });

    await tab(page, "Usage");
    await page.getByTestId("freshness").getByText("UTC").first().waitFor();
    const total = before.requests + 3;
    await expect.poll(() => page.getByTestId("stat-delivered").textContent()).toBe(String(total));
    // Every request, refusals too, split by outcome: the four parts add up to the whole, and the
    // four refusals just made are among the refused.
    const count = (text: string | null) => Number((text ?? "").replace(/,/g, ""));
    const all = count(await page.getByTestId("stat-all-requests").textContent());
    const split = (await page
      .getByTestId("stat")
      .filter({ hasText: "All requests" })
      .locator("p")
      .last()
      .textContent())!;
    const parts = Object.fromEntries(
      [...split.matchAll(/([\d,]+) (served|cached|refused|failed)/g)].map((m) => [m[2], count(m[1]!)]),
    );
    expect(Object.keys(parts)).toEqual(["served", "cached", "refused", "failed"]);
    expect(parts.served! + parts.cached! + parts.refused! + parts.failed!).toBe(all);
    expect(parts.refused).toBeGreaterThanOrEqual(4);
    expect(parts.served! + parts.cached!).toBeGreaterThanOrEqual(total);
    // It opens since the first request (this project's traffic fills the chart), both dates said.
    const range = page.getByRole("group", { name: "Date range" });
    expect(await range.getByRole("button", { name: "Since the first request" }).getAttribute("aria-pressed")).toBe(
      "true",
    );
    expect(await page.getByLabel("From (UTC)").inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await page.getByLabel("To (UTC)").inputValue()).toBe(new Date().toISOString().slice(0, 10));
    await page.getByText("Delivered images and bytes per day", { exact: true }).waitFor();
    // The savings card speaks the outcomes' words, and its figures add up to theirs.
    const spared = (await page.getByTestId("transforms-spared").textContent())!.replace(/,/g, "");
    const [, answers, served, cached, images, others] =
      /(\d+) answers delivered: (\d+) served .* and (\d+) cached .*; (\d+) images and (\d+) not modified or JSON/
        .exec(spared)!
        .map(Number);
    expect([served, cached]).toEqual([parts.served, parts.cached]);
    expect(served! + cached!).toBe(answers);
    expect(images! + others!).toBe(answers);
    // The CSV of the range shown says the same numbers, by day.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("usage-export").click()]);
    const rows = readFileSync((await download.path())!, "utf8")
      .split("\r\n")
      .filter(Boolean)
      .slice(1)
      .map((line) => line.split(","));
    const column = (i: number) => rows.reduce((sum, row) => sum + Number(row[i]), 0);
    expect(rows.every((row) => row[1] === "website")).toBe(true);
    expect([column(2), column(4)]).toEqual([total, all]);
    // Every image of this run was served today: the day's distinct variants are the savings card's
    // unique transformations of the 30 days.
    const todays = rows.find((row) => row[0] === new Date().toISOString().slice(0, 10))!;
    const unique = count(await page.getByTestId("unique-transformations").locator("span").first().textContent());
    expect(unique).toBeGreaterThan(0);
    expect(unique).toBe(Number(todays[9]));
    // Up to a week, by the hour: pointing at a bar names its hour (with UTC) and its outcomes.
    await page.getByRole("group", { name: "Date range" }).getByRole("button", { name: "7 days" }).click();
    await page.getByText("Every request by outcome, per hour").waitFor();
    const chart = page.getByTestId("outcome-chart");
    await expect.poll(() => chart.locator(".recharts-bar-rectangle").count()).toBeGreaterThan(0);
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3);
    const tooltip = page.getByTestId("outcome-chart").locator(".recharts-tooltip-wrapper");
    await expect.poll(() => tooltip.textContent()).toMatch(/UTC\).*(Served|Cached|Refused|Failed)/);
    await screenshot(page, "09a-usage-outcomes");
    await page.getByText("Show as a table", { exact: true }).click();
    const today = new Date().toISOString().slice(0, 10);
    expect(
      await page
        .getByTestId("daily-table")
        .getByRole("row")
        .filter({ has: page.locator(`time[datetime="${today}"]`) })
        .textContent(),
    ).toContain(String(total));
    expect(await page.getByRole("table", { name: "Usage by key" }).textContent()).toContain("production web");
    await page.getByLabel("Status").selectOption("sig_invalid");
    await expect.poll(() => page.getByRole("table", { name: "Request log" }).getByRole("row").count()).toBe(5); // header + the four refusals
    // At 1280 px a row is one line, and its request id is whole, not cut.
    const logRows = page.getByTestId("request-log").locator("tbody tr");
    for (let i = 0; i < 4; i++) expect((await logRows.nth(i).boundingBox())!.height).toBeLessThan(48);
    const ids = await page.getByTestId("request-id").allTextContents();
    expect(ids.sort()).toEqual([...refusedIds].sort());
    const cut = await page
      .getByTestId("request-id")
      .evaluateAll((spans) => spans.some((span) => span.scrollWidth > span.clientWidth + 1));
    expect(cut).toBe(false);
    await screenshot(page, "09b-usage");
    // The id an integrator sees in the error body finds that one request, whatever the status filter.
    await page.getByLabel("Status").selectOption("success");
    await page.getByLabel("Request id").fill(refusedIds[2]!);
    const found = page.getByRole("table", { name: "Request log" }).getByRole("row");
    await expect.poll(() => found.count()).toBe(2);
    expect(await found.nth(1).textContent()).toContain(refusedIds[2]!);
    await page.getByLabel("Request id").fill("");
    // By source: nothing matches, and the empty state offers the way back.
    await page.getByLabel("Source", { exact: true }).fill("no-such-source");
    await page.getByText("No request matches these filters").waitFor();
    await page.getByRole("button", { name: "Clear the filters" }).click();
    expect(await page.getByLabel("Source", { exact: true }).inputValue()).toBe("");
    await page.getByLabel("Source", { exact: true }).fill("PHOTO.jpg");
    await expect
      .poll(async () => (await page.getByRole("table", { name: "Request log" }).getByRole("row").count()) > 1)
      .toBe(true);

    await page.getByRole("navigation", { name: "Team" }).getByRole("link", { name: "Usage" }).click();
    await expect
      .poll(() => page.getByRole("table", { name: "Usage by project" }).textContent())
      .toContain(String(total));
    await screenshot(page, "09c-team-usage");
    await go(page, `/t/${teamSlug}/p/website`);
  });

  it("shows which cache tier answered, and purges a source so its next request is made again with a new ETag", async () => {
    const page = alice.page;
    const before = await fetch(signedUrl);
    const oldEtag = before.headers.get("etag")!;
    expect(before.headers.get("cache-tag")).toMatch(/^optstuff-p-[A-Za-z0-9_-]{22},optstuff-s-[A-Za-z0-9_-]{22}$/);
    await tab(page, "Usage");
    const tiers = page.getByTestId("cache-tiers");
    await expect.poll(() => tiers.textContent()).toContain("Transformed");
    expect(await tiers.textContent()).toContain("In memory (L1)");
    // How each image's quality was chosen, and what it came to against the originals.
    const modes = page.getByRole("table", { name: "Images by quality mode" });
    await expect.poll(() => modes.textContent()).toContain("Fixed quality");
    expect(await modes.textContent()).toMatch(/\d+(\.\d)?%/);
    expect(await page.getByTestId("result-store-size").textContent()).toMatch(
      /Result store \(files\): this project's results take .+ in [1-9]\d* results/,
    );

    await tab(page, "Cache");
    await page.getByTestId("cache-store").getByText("Never purged.").waitFor();
    await page.getByLabel("Source URL").fill(`http://${origin.host}/photo.jpg`);
    await page.getByRole("button", { name: "Purge source" }).click();
    const done = page.getByTestId("purge-done");
    await done.waitFor();
    const cdnTag = await done.locator("code").textContent();
    expect(before.headers.get("cache-tag")).toContain(cdnTag!);
    await expect
      .poll(() => page.getByTestId("purged-sources").textContent())
      .toContain(`http://${origin.host}/photo.jpg`);
    await screenshot(page, "09d-cache-purged");

    const downloads = origin.requests.length;
    const after = await fetch(signedUrl, { headers: { "If-None-Match": oldEtag } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(oldEtag);
    expect((await sharp(Buffer.from(await after.arrayBuffer())).metadata()).width).toBe(320);
    expect(origin.requests.length).toBe(downloads + 1);
    await go(page, `/t/${teamSlug}/p/website`);
  });

  it("adds a preset (a bad one is refused next to the form), and presets only refuses the key's plain URL until turned off", async () => {
    const page = alice.page;
    await tab(page, "Presets");
    await page.getByText("No presets yet").waitFor();
    await page.getByLabel("Name").fill("hero");
    await page.getByLabel("Operations").fill("w_0");
    await page.getByRole("button", { name: "Save preset" }).click();
    await page.getByText(/Invalid operation "w_0"/).waitFor();
    expect(await page.getByLabel("Operations").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Operations").fill("s_1200x630,g_attention,f_auto,q_75");
    // Before saving, what it makes: the sample photo before and after, with the facts of both.
    await page.getByRole("button", { name: "Preview on the sample photo" }).click();
    const shown = page.getByTestId("operations-preview");
    await shown.waitFor();
    expect(await page.getByLabel("Operations").getAttribute("aria-invalid")).not.toBe("true");
    expect(await shown.getByTestId("preview-before").textContent()).toMatch(/^JPEG 1600 × 1067, 151(\.\d)? KiB$/);
    expect(await shown.getByTestId("preview-after").textContent()).toMatch(/^AVIF 1200 × 630, [\d.]+ KiB$/);
    const after = shown.getByRole("img", { name: /^After/ });
    await expect.poll(() => after.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1200);
    const before = shown.getByRole("img", { name: /^Before/ });
    await expect.poll(() => before.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1600);
    await screenshot(page, "09c2-preset-preview");
    await page.getByRole("button", { name: "Save preset" }).click();
    await page.getByTestId("preset-saved").waitFor();
    await expect.poll(() => page.getByTestId("presets").textContent()).toContain("pr_hero");

    // Presets only asks first, with what it would refuse: the key's plain URL was asked for above.
    await page.getByRole("button", { name: "Accept presets only" }).click();
    const confirm = page.getByRole("alertdialog");
    const impact = confirm.getByTestId("presets-only-impact");
    await impact.waitFor();
    expect(await impact.textContent()).toMatch(
      /^[1-9]\d* of the [1-9]\d* images delivered in the last 7 days would have been refused\./,
    );
    expect(await impact.textContent()).toContain("w_320,f_webp");
    await screenshot(page, "09d-presets-only-confirm");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect(await page.getByTestId("presets-only").textContent()).toContain("Off:");
    expect((await fetch(signedUrl)).status).toBe(200);
    await page.getByRole("button", { name: "Accept presets only" }).click();
    await confirm.getByRole("button", { name: "Accept presets only" }).click();
    await expect.poll(() => page.getByTestId("presets-only").textContent()).toContain("On:");
    await screenshot(page, "09e-presets");
    // The project's config is cached: the refusal shows within the cache's bound.
    await expect.poll(async () => (await fetch(signedUrl)).status, { timeout: 5000 }).toBe(400);
    expect(((await (await fetch(signedUrl)).json()) as { error: string }).error).toMatch(/accepts a preset only/);
    await page.getByRole("button", { name: "Accept any operations" }).click();
    await expect.poll(() => page.getByTestId("presets-only").textContent()).toContain("Off:");
    await expect.poll(async () => (await fetch(signedUrl)).status, { timeout: 5000 }).toBe(200);

    // The default quality mode: the key's plain URL (w_320,f_webp, no q_) is searched from then on.
    expect((await fetch(signedUrl)).headers.get("x-optstuff-quality")).toBeNull();
    const mode = page.getByLabel("Quality mode");
    expect(await page.getByRole("button", { name: "Save quality mode" }).isDisabled()).toBe(true);
    await mode.selectOption("eco");
    await page.getByRole("button", { name: "Save quality mode" }).click();
    await page.getByText("Saved. Image requests use it at once.").waitFor();
    await expect
      .poll(async () => (await fetch(signedUrl)).headers.get("x-optstuff-quality"), { timeout: 5000 })
      .toMatch(/^\d+; score=/);
    await page.reload();
    expect(await page.getByLabel("Quality mode").inputValue()).toBe("eco");
    await page.getByLabel("Quality mode").selectOption("fixed");
    await page.getByRole("button", { name: "Save quality mode" }).click();
    await page.getByText("Saved. Image requests use it at once.").waitFor();
    await expect
      .poll(async () => (await fetch(signedUrl)).headers.get("x-optstuff-quality"), { timeout: 5000 })
      .toBeNull();
  });

  it("gives the key a policy (a preset the project lacks is refused at its field), whose preview says what it refuses, and the route refuses it at once", async () => {
    const page = alice.page;
    await tab(page, "API keys");
    await page.getByTestId("api-key-row").getByRole("button", { name: "Policy" }).click();
    const dialog = page.getByRole("dialog");
    const preview = dialog.getByTestId("policy-preview");
    expect(await preview.textContent()).toBe("This key signs everything the project allows.");
    await dialog.getByLabel(/^Presets only/).check();
    await dialog.getByLabel("Presets it may sign").fill("hero, nosuch");
    await dialog
      .getByLabel("Longest URL lifetime")
      .selectOption({ label: "1 day: URLs must carry exp, at most that far ahead" });
    await expect
      .poll(() => preview.locator("li").allTextContents())
      .toEqual([
        "URLs that are not one preset (pr_…)",
        "Presets other than hero, nosuch",
        "URLs without exp, or expiring more than 1 day ahead",
      ]);
    const { violations } = await new AxeBuilder({ page })
      .include('[role="dialog"]')
      .withTags(["wcag2a", "wcag2aa"])
      .analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    // Judged on the key's own recent images: its plain URL was served above.
    const check = dialog.getByRole("button", { name: "Check against this key's recent images" });
    await check.click();
    const judged = dialog.getByTestId("key-policy-impact");
    await judged.waitFor();
    expect(await judged.textContent()).toMatch(
      /^[1-9]\d* of the [1-9]\d* images delivered in the last 7 days would have been refused\./,
    );
    expect(await judged.textContent()).toContain("w_320,f_webp");
    await dialog.getByRole("button", { name: "Save policy" }).click();
    await dialog.getByRole("alert").filter({ hasText: "The project has no preset nosuch" }).waitFor();
    expect(await dialog.getByLabel("Presets it may sign").getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "08c-key-policy-refused");
    await dialog.getByLabel("Presets it may sign").fill("hero");
    // The count was for the policy as typed then: typing again asks for a new one.
    await check.waitFor();
    expect(await judged.count()).toBe(0);
    await dialog.getByRole("button", { name: "Save policy" }).click();
    await expect.poll(() => page.getByTestId("key-policy").textContent()).toContain("URLs that are not one preset");
    // The key's plain URL (w_320,f_webp, no exp) is refused from the next request on, saying why.
    const refused = await fetch(signedUrl);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "KEY_POLICY_REFUSED", error: /^This key may not sign w, f:/ });

    // Opened again it shows the policy saved; cleared, the key signs what the project allows again.
    await page.getByTestId("api-key-row").getByRole("button", { name: "Policy" }).click();
    expect(await dialog.getByLabel(/^Presets only/).isChecked()).toBe(true);
    expect(await dialog.getByLabel("Presets it may sign").inputValue()).toBe("hero");
    await dialog.getByLabel(/^Presets only/).uncheck();
    await dialog.getByLabel("Presets it may sign").fill("");
    await dialog.getByLabel("Longest URL lifetime").selectOption({ label: "No limit (exp optional)" });
    await dialog.getByRole("button", { name: "Save policy" }).click();
    await expect.poll(() => page.getByTestId("key-policy").count()).toBe(0);
    expect((await fetch(signedUrl)).status).toBe(200);
  });

  it("caps the key's spending in its Edit dialog (a day above the month is refused at its field); once a flush counts the cap reached, new images are refused with SPEND_CAP_REACHED, made ones still served, and the list says until when, at 375 and 1280 px with axe", async () => {
    const page = alice.page;
    await tab(page, "API keys");
    const row = page.getByTestId("api-key-row").first();
    await row.getByRole("button", { name: "Edit" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Cap on transforms a day").fill("5000");
    await dialog.getByLabel("Cap on transforms a month").fill("10");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByText("A day's transforms cannot be capped above the month's").waitFor();
    expect(await dialog.getByLabel("Cap on transforms a day").getAttribute("aria-invalid")).toBe("true");
    const { violations } = await new AxeBuilder({ page })
      .include('[role="dialog"]')
      .withTags(["wcag2a", "wcag2aa"])
      .analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    await screenshot(page, "08d-key-caps-refused");
    // One transform a day, and half a gigabyte a month: the key has made more than one today already.
    await dialog.getByLabel("Cap on transforms a day").fill("1");
    await dialog.getByLabel("Cap on transforms a month").fill("");
    await dialog.getByLabel("Cap on MB delivered a month").fill("500");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "hidden" });
    const caps = row.getByTestId("key-spend-caps");
    await expect.poll(() => caps.textContent()).toMatch(/of 1 transforms a day \(\d+ %\).*of 500 MB delivered a month/);

    // The served app's flush (the cron route, as an external scheduler calls it) checks the caps after it.
    await new Promise((resolve) => setTimeout(resolve, 500)); // metering follows the response
    const flushed = (await (await app.cron("/api/cron/flush-usage-buffer?safetyLagSeconds=0")).json()) as {
      caps: { reached: number };
    };
    // Reached by this flush, or by the in-process scheduler's a moment before it.
    expect(flushed.caps.reached).toBeLessThanOrEqual(1);
    const variant = (width: number) =>
      buildSignedUrl({
        baseUrl: app.baseUrl,
        projectSlug: "website",
        ...firstKey,
        operations: `w_${width},f_webp`,
        source: `http://${origin.host}/photo.jpg`,
      });
    await expect.poll(async () => (await fetch(variant(211))).status).toBe(429);
    const refused = await fetch(variant(212));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      code: "SPEND_CAP_REACHED",
      error: expect.stringContaining("reached its cap of 1 transforms a day"),
    });
    const midnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400;
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBe(midnight);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await fetch(signedUrl)).status).toBe(200); // made before: still served

    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.reload();
      const reached = page.getByTestId("api-key-row").first().getByRole("status");
      await reached.waitFor();
      expect(await reached.textContent()).toMatch(/^Cap reached \(transforms a day\): new images refused until /);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      const found = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      expect(
        found.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id),
      ).toEqual([]);
      await screenshot(page, `08e-key-cap-reached-${width}px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // Caps emptied: the key is released at once, and makes new images again.
    await page.getByTestId("api-key-row").first().getByRole("button", { name: "Edit" }).click();
    await dialog.getByLabel("Cap on transforms a day").fill("");
    await dialog.getByLabel("Cap on MB delivered a month").fill("");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => page.getByTestId("key-spend-caps").count()).toBe(0);
    expect((await fetch(variant(213))).status).toBe(200);
  });

  it("uploads a watermark (a non-image is refused next to the form), puts it on every output, and adds a fallback image", async () => {
    const page = alice.page;
    await tab(page, "Images");
    await page.getByTestId("watermark-none").waitFor();
    await page
      .getByTestId("watermark-file")
      .setInputFiles({ name: "notes.png", mimeType: "image/png", buffer: Buffer.from("not an image") });
    await page.getByText("That file is not an image").waitFor();
    // A 20000×20000 PNG of a few KB is refused from its header in a transform process, before a pixel is decoded.
    await page
      .getByTestId("watermark-file")
      .setInputFiles({ name: "bomb.png", mimeType: "image/png", buffer: pixelBombPng(20_000, 20_000) });
    await page.getByText("The image is too large: at most 2048 px a side").waitFor();
    const red = await sharp({ create: { width: 120, height: 40, channels: 3, background: "#f00" } })
      .png()
      .toBuffer();
    await page.getByTestId("watermark-file").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: red });
    await expect.poll(() => page.getByTestId("watermark-facts").textContent()).toContain("120×40 px");
    await page.getByTestId("watermark-always").check();
    await page.getByRole("button", { name: "Save placement" }).click();
    await page.getByTestId("watermark-placement-saved").waitFor();
    const green = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#0a0" } })
      .png()
      .toBuffer();
    await page
      .getByTestId("fallback-file")
      .setInputFiles({ name: "missing.png", mimeType: "image/png", buffer: green });
    await expect.poll(() => page.getByTestId("fallback-facts").textContent()).toContain("64×64 px");
    await screenshot(page, "09f-images");

    // The key's URL (w_320) now carries the mark in its bottom-right corner (16 px in, a fifth of the width), within the config cache's bound.
    const cornerOf = async () => {
      const { data, info } = await sharp(Buffer.from(await (await fetch(signedUrl)).arrayBuffer()))
        .raw()
        .toBuffer({ resolveWithObject: true });
      const at = ((info.height - 20) * info.width + (info.width - 20)) * info.channels;
      return [...data.subarray(at, at + 3)];
    };
    await expect
      .poll(async () => (await cornerOf())[0]! > 200 && (await cornerOf())[1]! < 60, { timeout: 5000 })
      .toBe(true);
    await page.getByTestId("watermark-always").uncheck();
    await page.getByRole("button", { name: "Save placement" }).click();
    await page.getByTestId("watermark-placement-saved").waitFor();
    await expect.poll(async () => (await cornerOf())[0]! < 200, { timeout: 5000 }).toBe(true);
  });

  it("adds a private bucket (an unsafe endpoint is refused next to the form), and the tester previews an image read from it", async () => {
    const page = alice.page;
    s3 = await startS3({ own: true });
    const bucket = await s3.bucket();
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: s3,
      requestChecksumCalculation: "WHEN_REQUIRED",
    });
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: "shop/photo.jpg", Body: readFileSync("demo/photo.jpg") }),
    );
    client.destroy();
    const secret = "browser-bucket-secret-31d8";

    await tab(page, "Buckets");
    await page.getByText("No buckets yet").waitFor();
    await page.getByLabel("Alias").fill("media");
    await page.getByLabel("Endpoint").fill("http://169.254.169.254");
    await page.getByLabel("Bucket", { exact: true }).fill(bucket);
    await page.getByLabel("Key prefix").fill("shop/");
    await page.getByLabel("Access key id").fill(s3.accessKeyId);
    await page.getByLabel("Secret access key").fill(secret);
    await page.getByRole("button", { name: "Save bucket" }).click();
    await page.getByText(/Endpoint: address 169\.254\.169\.254/).waitFor();
    expect(await page.getByLabel("Endpoint").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Endpoint").fill(s3.endpoint);
    await page.getByRole("button", { name: "Save bucket" }).click();
    await page.getByTestId("bucket-saved").waitFor();
    await expect.poll(() => page.getByTestId("buckets").textContent()).toContain("s3/media/");
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, "09g-buckets");

    await tab(page, "Developer");
    await page.getByLabel("Operations").fill("w_200,f_webp");
    await page.getByLabel("Source").fill("s3/media/photo.jpg");
    await page.getByRole("button", { name: "Sign and preview" }).click();
    await page.getByText("Preview loaded.").waitFor();
    expect(await page.getByTestId("preview-image").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(200);
  });

  it("renders every dashboard page with its data in the server's HTML, and paints it without a loading state", async () => {
    const page = alice.page;
    const pages = dashboardPages();
    const printedBefore = app.output().length;
    const timings: string[] = [];
    const stillLoading = new Map<string, number>();
    for (const [name, path, shows] of pages) {
      // Time to a filled page: navigation start to the page's data on screen.
      const started = Date.now();
      await go(page, path);
      await page.getByText(shows).first().waitFor();
      timings.push(`${name} ${Date.now() - started} ms`);
      stillLoading.set(name, await page.getByText("Loading…").count());
      await screenshot(page, `09h-first-paint-${name}`);
    }
    console.log(`time to a filled page (Chromium, next start): ${timings.join(", ")}`);
    for (const [name, path, shows] of pages) {
      const html = await (await page.request.get(`${app.baseUrl}${path}`)).text();
      expect(html, name).toContain(shows);
      expect(html, name).not.toContain("Loading…");
      expect(stillLoading.get(name), name).toBe(0);
    }

    // A team or project that does not exist, or is not the user's, is the not-found page with a 404.
    for (const path of [`/t/no-such-team-${stamp}`, `/t/${teamSlug}/p/no-such-project`, `/t/${"x".repeat(101)}`]) {
      const missing = await page.request.get(`${app.baseUrl}${path}`);
      expect(missing.status(), path).toBe(404);
      expect(await missing.text(), path).toContain("belongs to a team you are not a member of");
    }
    // Rendering them logged no error (Next prints "⨯" for one, e.g. a prefetch streamed and then refused).
    expect(app.output().slice(printedBefore)).not.toContain("⨯");
  });

  it("answers a tab click at once while the server takes seconds: the tab is marked and the page says it is loading", async () => {
    const page = alice.page;
    await go(page, `/t/${teamSlug}/p/website`);
    await page.getByRole("navigation", { name: "Project" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.getByRole("button", { name: "Purge" }).count()).toBe(0);
    // Each navigation's answer from the server (not the prefetches made before) held back 3 s.
    const slow = async (route: Route) => {
      const headers = route.request().headers();
      if (headers.rsc === "1" && headers["next-router-prefetch"] === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
      await route.continue();
    };
    await page.route("**/*", slow);
    try {
      await tab(page, "Cache");
      await page.getByTestId("page-loading").waitFor({ timeout: 2500 });
      const cacheTab = page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Cache" });
      expect(await cacheTab.getAttribute("aria-current")).toBe("page");
      expect(await page.getByRole("button", { name: "Purge" }).count()).toBe(0);
      await screenshot(page, "09i-loading-a-tab");
      await page.getByRole("button", { name: "Purge" }).first().waitFor({ timeout: 15_000 });
      expect(await page.getByTestId("page-loading").count()).toBe(0);
      // A team page too (its own boundary, beside the projects').
      const teamSettings = page.getByRole("navigation", { name: "Team" }).getByRole("link", { name: "Settings" });
      await teamSettings.click();
      await page.getByTestId("page-loading").waitFor({ timeout: 2500 });
      expect(await teamSettings.getAttribute("aria-current")).toBe("page");
      expect(await page.getByRole("heading", { name: "Members" }).count()).toBe(0);
      await page.getByRole("heading", { name: "Members" }).waitFor({ timeout: 15_000 });
      expect(await page.getByTestId("page-loading").count()).toBe(0);
    } finally {
      await page.unroute("**/*", slow);
    }
  });

  it.each([375, 1280])(
    "every page at %i px in the light and the dark theme: no wider than the screen, the active navigation entry in view, no serious or critical axe violation",
    async (width) => {
      const page = alice.page;
      await page.setViewportSize({ width, height: 900 });
      const problems: string[] = [];
      try {
        for (const [pageName, path, shows] of dashboardPages()) {
          await page.emulateMedia({ colorScheme: "light" });
          await go(page, path);
          await page.locator("main").getByText(shows).first().waitFor();
          // The page once, each theme on it: the theme is a media query, so switching it repaints the page
          // as a load in that theme would; the transitions it starts (buttons' colours) end first.
          for (const theme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme: theme });
            await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished)));
            const name = `${pageName} (${theme})`;
            const wide = await page.evaluate(() => document.documentElement.scrollWidth);
            if (wide > width) {
              // Name the widest elements that stick out, innermost first, to say what to fix.
              const culprits = await page.evaluate((limit) => {
                const out = [...document.querySelectorAll("body *")].filter(
                  (e) =>
                    e.getBoundingClientRect().right > limit + 0.5 &&
                    ![...e.children].some((c) => c.getBoundingClientRect().right > limit + 0.5),
                );
                return out
                  .slice(0, 3)
                  .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].slice(0, 4).join(".")}`);
              }, width);
              problems.push(`${name}: ${wide} px wide (${culprits.join(", ")})`);
            }
            // Every navigation entry marked current and shown is inside the screen; one at least is shown.
            let shown = 0;
            for (const entry of await page.locator('nav [aria-current="page"]').all()) {
              if (!(await entry.isVisible())) continue;
              shown++;
              const box = await entry.boundingBox();
              if (!box || box.x < 0 || box.x + box.width > width) {
                problems.push(`${name}: the active entry "${await entry.textContent()}" is out of view`);
              }
            }
            if (shown === 0) problems.push(`${name}: no navigation entry is shown as current`);
            // On a phone the project's sections are a menu: its button names the current one.
            const menu = page.getByTestId("section-menu");
            if ((await menu.isVisible()) && (await menu.textContent())!.endsWith("Sections")) {
              problems.push(`${name}: the section menu names no current section`);
            }
            const { violations } = await new AxeBuilder({ page })
              .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
              .analyze();
            for (const violation of violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
              const where = violation.nodes.map((node) => node.target.join(" ")).slice(0, 3);
              problems.push(`${name}: ${violation.id} (${violation.impact}) at ${where.join(", ")}`);
            }
            if (theme === "dark") {
              // The theme is followed, not only allowed: the page and its cards are dark (each colour
              // painted on a canvas and read back as sRGB, whatever notation the browser computes).
              const surfaces = await page.evaluate(() => {
                const context = document.createElement("canvas").getContext("2d")!;
                return [document.body, document.querySelector("main section") ?? document.body].map((e) => {
                  const colour = getComputedStyle(e).backgroundColor;
                  context.fillStyle = colour;
                  context.fillRect(0, 0, 1, 1);
                  const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
                  return { colour, brightness: (r! + g! + b!) / 3 };
                });
              });
              for (const { colour, brightness } of surfaces) {
                if (brightness > 80) problems.push(`${name}: a light surface in the dark theme (${colour})`);
              }
            }
            await screenshot(page, `16-${width}px-${theme}-${pageName}`);
          }
        }
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.emulateMedia({ colorScheme: "light" });
      }
      expect(problems).toEqual([]);
    },
  );

  it("a button that sends says so until the answer comes, then a toast gives the result", async () => {
    const page = alice.page;
    await go(page, `/t/${teamSlug}/p/website/settings`);
    const save = page.getByRole("button", { name: "Save settings" });
    await save.waitFor();
    // The save's answer held back 2 s.
    const slow = async (route: Route) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await route.continue();
    };
    await page.route("**/api/trpc/project.update**", slow);
    try {
      await save.click();
      const saving = page.getByRole("button", { name: "Saving…" });
      await saving.waitFor({ timeout: 1500 });
      expect(await saving.isDisabled()).toBe(true);
      expect(await saving.getAttribute("aria-busy")).toBe("true");
      await screenshot(page, "09j-saving");
      const toast = page.getByTestId("toast").filter({ hasText: "Project settings saved" });
      await toast.waitFor({ timeout: 10_000 });
      expect(await page.getByRole("button", { name: "Save settings" }).isEnabled()).toBe(true);
      await screenshot(page, "09k-saved-toast");
      await toast.getByRole("button", { name: "Dismiss" }).click();
      await expect.poll(() => toast.count()).toBe(0);
    } finally {
      await page.unroute("**/api/trpc/project.update**", slow);
    }
    // Refused: the reason is at the field and the toast says nothing changed.
    await page.getByLabel("Allowed source hosts").fill("10.0.0.1");
    await save.click();
    const failed = page.getByTestId("toast").filter({ hasText: "did not go through" });
    await failed.waitFor();
    expect(await failed.textContent()).toContain("Nothing was changed");
    // Corrected and saved: the failure is taken back, only the success is said.
    await page.getByLabel("Allowed source hosts").fill(origin.host);
    await save.click();
    await page.getByTestId("toast").filter({ hasText: "Project settings saved" }).waitFor();
    expect(await failed.count()).toBe(0);
    await go(page, `/t/${teamSlug}/p/website/settings`);
    expect(await page.getByLabel("Allowed source hosts").inputValue()).toContain(origin.host);
  });

  it("the first Tab reaches a link that skips to the page's content", async () => {
    const page = alice.page;
    await go(page, `/t/${teamSlug}/p/website/keys`);
    await page.getByRole("navigation", { name: "Project" }).waitFor();
    await page.keyboard.press("Tab");
    const focused = page.locator(":focus");
    expect(await focused.textContent()).toBe("Skip to content");
    expect(await focused.isVisible()).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("main");
    // The next Tab lands inside the page, past the team and project navigation.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => !!document.activeElement?.closest("main"))).toBe(true);
  });

  it("links an icon every page can load: no request of a page answers 404", async () => {
    const page = alice.page;
    const missing: string[] = [];
    const watch = (response: { status(): number; url(): string }) => {
      if (response.status() === 404) missing.push(response.url());
    };
    page.on("response", watch);
    try {
      await go(page, `/t/${teamSlug}/p/website`);
      await page.getByRole("navigation", { name: "Project" }).waitFor();
      const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
      expect(href).toMatch(/^\/icon\.svg/);
      const icon = await page.request.get(`${app.baseUrl}${href}`);
      expect(icon.status()).toBe(200);
      expect(icon.headers()["content-type"]).toContain("image/svg+xml");
      expect(missing).toEqual([]);
    } finally {
      page.off("response", watch);
    }
  });

  it("rotates the key without grace (its URLs stop at once), then revokes the new one and its URLs stop too", async () => {
    const page = alice.page;
    await tab(page, "API keys");
    const status = (url: string) => page.evaluate(async (u) => (await fetch(u, { cache: "reload" })).status, url);
    await page.getByTestId("api-key-row").getByRole("button", { name: "Rotate" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Grace period").selectOption({ label: "None: the old key stops now" });
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await dialog.getByTestId("copy-Public key").or(dialog.getByRole("alert")).waitFor();
    expect(await dialog.getByRole("alert").allTextContents()).toEqual([]);
    const publicKey = (await dialog.getByTestId("copy-Public key").textContent())!;
    const secretKey = (await dialog.getByTestId("copy-Secret key").textContent())!;
    expect(secretKey).toMatch(/^sk_/);
    await screenshot(page, "09z-key-rotated");
    await page.keyboard.press("Escape");
    expect(await dialog.getByTestId("copy-Secret key").textContent()).toBe(secretKey);
    await dialog.getByLabel("I have stored the secret key").check();
    await dialog.getByRole("button", { name: "Done" }).click();
    expect(await status(signedUrl)).toBe(401);
    const rows = page.getByTestId("api-key-row");
    await rows.filter({ hasText: "expired" }).waitFor();
    expect(await rows.filter({ hasText: "expired" }).getByRole("button").count()).toBe(0);

    // The new pair signs what the old one did (the same limits came with it), until it is revoked.
    const current = rows.filter({ hasText: publicKey });
    expect(await current.textContent()).toContain("active");
    expect(await current.textContent()).toContain("120 transforms/min, 5,000/day");
    const fresh = buildSignedUrl({
      baseUrl: app.baseUrl,
      projectSlug: "website",
      publicKey,
      secretKey,
      operations: "w_320,f_webp",
      source: `http://${origin.host}/photo.jpg`,
    });
    expect(await status(fresh)).toBe(200);
    await current.getByRole("button", { name: "Revoke" }).click();
    await screenshot(page, "10-revoke-confirm");
    await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
    await current.getByText("revoked").waitFor();
    expect(await status(fresh)).toBe(401);
    // The tester's preview counted as the old key's last use.
    // Written in the viewer's locale, UTC on hover.
    const lastUsed = rows.filter({ hasText: "expired" }).locator("time").first();
    expect(await lastUsed.getAttribute("title")).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await lastUsed.textContent()).not.toContain("UTC");
    await screenshot(page, "11-keys-revoked");
  });

  it("invites a second user by link", async () => {
    const page = alice.page;
    await page.getByRole("navigation", { name: "Team" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Invitations" }).waitFor();
    await page.getByLabel("Email").fill(`bob-${stamp}@example.com`);
    await page.getByRole("button", { name: "Invite" }).click();
    invitationLink = (await page.getByTestId("copy-Invitation link").textContent())!;
    expect(invitationLink).toContain(`${app.baseUrl}/invite/`);
    // Alice is the team's only owner: Leave is disabled, and the page says why before she tries.
    const leave = page.getByRole("button", { name: "Leave team" });
    expect(await leave.isDisabled()).toBe(true);
    const why = page.locator(`[id="${await leave.getAttribute("aria-describedby")}"]`);
    expect(await why.textContent()).toBe("You are the last owner: make someone else owner or delete the team");
    await screenshot(page, "12-team-settings");
  });

  it("the invited user signs up with the keyboard at 375 px, accepts, and sees the project", async () => {
    const page = bob.page;
    await page.goto(invitationLink);
    await page.getByText("You are invited to join").waitFor();
    await screenshot(page, "13-invitation-signed-out");
    await page.getByRole("link", { name: "Create an account" }).click();
    // The invitation opens the form, for the invited address only.
    expect(await page.getByLabel("Email").inputValue()).toBe(`bob-${stamp}@example.com`);
    expect(await page.getByLabel("Email").getAttribute("readonly")).not.toBeNull();
    await page.getByLabel("Name").focus();
    await page.keyboard.type("Bob");
    await page.keyboard.press("Tab");
    await page.keyboard.type(`bob-${stamp}@example.com`);
    await page.keyboard.press("Tab");
    await page.keyboard.type(password);
    await page.keyboard.press("Enter");
    // No team is made on the way: the invitation is the next step, to accept or decline.
    await page.waitForURL(/\/invite\//);
    await page.getByRole("button", { name: "Decline" }).waitFor();
    await screenshot(page, "13b-invitation-signed-in-375px");
    await page.getByRole("button", { name: "Accept invitation" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}$`));
    await page.getByRole("link", { name: /Website/ }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, "14-member-team-375px");
    await page.getByRole("link", { name: /Website/ }).click();
    await tab(page, "API keys");
    await page.getByTestId("api-key-row").first().waitFor();
    expect(await page.getByRole("button", { name: "New key" }).count()).toBe(0);
    await screenshot(page, "15-member-keys-375px");
    // A member reads the presets, images and buckets, and is offered nothing to change.
    await tab(page, "Presets");
    await page.getByText("Only admins and owners can change presets.").waitFor();
    expect(await page.getByRole("button", { name: "Save preset" }).count()).toBe(0);
    await tab(page, "Images");
    await page.getByTestId("watermark-placement").waitFor();
    expect(await page.getByTestId("watermark-file").count()).toBe(0);
    expect(await page.getByRole("button", { name: /Remove/ }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, "15b-member-images-375px");
    await tab(page, "Buckets");
    await expect.poll(() => page.getByTestId("buckets").textContent()).toContain("s3/media/");
    expect(await page.getByRole("button", { name: "Save bucket" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Remove" }).count()).toBe(0);
  });

  it("the audit log shows a change made in another tab within 5 s without a reload, filters and exports it; a member gets 404 and 403", async () => {
    const page = alice.page;
    await go(page, `/t/${teamSlug}`);
    await page.getByRole("navigation", { name: "Team" }).getByRole("link", { name: "Audit log" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}/audit$`));
    const log = page.getByTestId("audit-log");
    await expect.poll(() => log.textContent()).toContain("joined through an invitation");
    expect(await log.textContent()).toContain(`bob-${stamp}@example.com`);

    // A change in another tab: the open log shows it without being reloaded.
    const other = await alice.context.newPage();
    await other.goto(`${app.baseUrl}/t/${teamSlug}/p/website/presets`);
    await other.getByLabel("Name").fill("audited");
    await other.getByLabel("Operations").fill("w_100");
    await other.getByRole("button", { name: "Save preset" }).click();
    await other.getByTestId("preset-saved").waitFor();
    await other.close();
    await expect.poll(() => log.textContent(), { timeout: 5000 }).toContain("pr_audited");
    await screenshot(page, "17-audit-log");
    // The purge says what was purged, not the cache's counters and flags.
    await page.getByLabel("Action").selectOption({ label: "purged cached results" });
    await expect.poll(() => log.textContent()).toContain(`${origin.host}/photo.jpg`);
    expect(await log.textContent()).not.toMatch(/generation|widened/);

    await page.getByLabel("Action").selectOption({ label: "saved a preset" });
    await expect
      .poll(
        async () =>
          new Set(
            await log.locator("[data-action]").evaluateAll((els) => els.map((e) => e.getAttribute("data-action"))),
          ),
      )
      .toEqual(new Set(["preset.saved"]));
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("audit-export").click()]);
    const csv = readFileSync((await download.path())!, "utf8")
      .split("\r\n")
      .filter(Boolean);
    expect(csv[0]).toBe(
      "time (UTC),actor,actor id,action,target type,target,target id,project id,changes,ip,user agent",
    );
    expect(csv.length).toBeGreaterThan(2);
    expect(csv.slice(1).every((line) => line.includes(",preset.saved,preset,"))).toBe(true);
    expect(csv.join("\n")).toContain("pr_audited");

    // Bob is a member: no link, the page is not found, the export refused.
    const member = bob.page;
    await go(member, `/t/${teamSlug}`);
    await member.getByRole("navigation", { name: "Team" }).getByRole("link", { name: "Usage" }).waitFor();
    expect(
      await member.getByRole("navigation", { name: "Team" }).getByRole("link", { name: "Audit log" }).count(),
    ).toBe(0);
    expect((await go(member, `/t/${teamSlug}/audit`))!.status()).toBe(404);
    expect((await member.request.get(`${app.baseUrl}/api/export/audit?team=${teamSlug}`)).status()).toBe(403);
    expect((await member.request.get(`${app.baseUrl}/api/export/audit`)).status()).toBe(404);
    expect((await go(member, "/instance/audit"))!.status()).toBe(404);

    // Alice owns the instance: its log has both sign-ups' sign-ins.
    await go(page, `/t/${teamSlug}`);
    await page.getByRole("link", { name: "Instance log" }).click();
    await page.waitForURL(/\/instance\/audit$/);
    const instance = page.getByTestId("audit-log");
    await expect.poll(() => instance.textContent()).toContain(`bob-${stamp}@example.com`);
    expect(await instance.textContent()).toContain("signed in");
    await screenshot(page, "18-instance-audit-log");
  });

  it("alerts: an admin sets them (a bad share is refused next to its field), a bucket refusing its key id shows in the banner without a reload, and leaves it once fixed; a member sees none", async () => {
    const page = alice.page;
    await go(page, `/t/${teamSlug}/settings`);
    const card = page.getByTestId("alert-settings");
    await card.waitFor();
    // This server has no SMTP: the card says so and offers the banner, not a mail that would never go.
    expect(await card.getByTestId("alerts-no-mail").textContent()).toContain("no mail configured");
    expect(await card.getByText("Mail the team's admins").count()).toBe(0);
    expect(await card.getByLabel("Key day limit used (%)").inputValue()).toBe("80");
    await card.getByLabel("Key day limit used (%)").fill("0");
    await card.getByRole("button", { name: "Save alerts" }).click();
    await card.getByText("The share of a key's day limit is at least 1 %").waitFor();
    await card.getByLabel("Key day limit used (%)").fill("90");
    await card.getByLabel("Error rate over 15 minutes (%)").fill("");
    await card.getByRole("button", { name: "Save alerts" }).click();
    await page.getByTestId("toast").filter({ hasText: "Alert settings saved" }).waitFor();
    await page.reload();
    await card.waitFor();
    expect(await card.getByLabel("Key day limit used (%)").inputValue()).toBe("90");
    expect(await card.getByLabel("Error rate over 15 minutes (%)").inputValue()).toBe("");

    // A bucket whose access key id the S3 server does not know: the next check finds it refused.
    const bucket = await s3!.bucket();
    await go(page, `/t/${teamSlug}/p/website/buckets`);
    const save = async (accessKeyId: string) => {
      await page.getByLabel("Alias").fill("broken");
      await page.getByLabel("Endpoint").fill(s3!.endpoint);
      await page.getByLabel("Bucket", { exact: true }).fill(bucket);
      await page.getByLabel("Access key id").fill(accessKeyId);
      await page.getByLabel("Secret access key").fill("browser-alert-secret");
      await page.getByRole("button", { name: "Save bucket" }).click();
      await expect.poll(() => page.getByTestId("bucket-saved").textContent()).toContain("s3/broken");
    };
    await save("NOT-A-KEY-ID");
    expect(await page.getByTestId("alerts-banner").count()).toBe(0);
    expect((await app.cron("/api/cron/check-alerts")).status).toBe(200);
    const banner = page.getByTestId("alerts-banner");
    await expect
      .poll(() => banner.textContent().catch(() => ""), { timeout: 20_000 })
      .toContain('Bucket "broken" of Website: the bucket does not know the access key id');
    await screenshot(page, "19-alerts-banner");
    await banner.getByRole("link", { name: "Open the project's buckets" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}/p/website/buckets$`));

    // Bob is a member: no banner, and the alerts are not his to read.
    const member = bob.page;
    await go(member, `/t/${teamSlug}`);
    await member.getByRole("navigation", { name: "Team" }).getByRole("link", { name: "Usage" }).waitFor();
    expect(await member.getByTestId("alerts-banner").count()).toBe(0);
    const refused = await member.request.get(
      `${app.baseUrl}/api/trpc/alerts.current?input=${encodeURIComponent(JSON.stringify({ json: { teamSlug } }))}`,
    );
    expect(refused.status()).toBe(403);

    // Saved with the right key id: the next check tries it afresh and the alert leaves the banner.
    await save(s3!.accessKeyId);
    expect((await app.cron("/api/cron/check-alerts")).status).toBe(200);
    await page.reload();
    await page.getByTestId("buckets").waitFor();
    expect(await page.getByTestId("alerts-banner").count()).toBe(0);
  });

  it("a new key's secret is not lost by closing its dialog while the key is being made", async () => {
    const page = alice.page;
    await go(page, `/t/${teamSlug}/p/website/keys`);
    await page.getByRole("button", { name: "New key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Key name").fill("made slowly");
    // The answer held back 2 s: Escape, a click outside and Cancel all come while it is on its way.
    const slow = async (route: Route) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await route.continue();
    };
    await page.route("**/api/trpc/apiKey.create**", slow);
    try {
      await dialog.getByRole("button", { name: "Create key" }).click();
      await dialog.getByRole("button", { name: "Creating…" }).waitFor({ timeout: 1500 });
      await page.keyboard.press("Escape");
      await page.mouse.click(5, 5);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.getByTestId("copy-Secret key").waitFor();
      expect(await dialog.getByTestId("copy-Secret key").textContent()).toMatch(/^sk_/);
    } finally {
      await page.unroute("**/api/trpc/apiKey.create**", slow);
    }
    // On a phone too, the whole secret and .env block are on screen.
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      await expectSecretShownWhole(page);
      await screenshot(page, "19b-key-created-375px");
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await dialog.getByLabel("I have stored the secret key").check();
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await page.getByTestId("api-key-row").filter({ hasText: "made slowly" }).waitFor();
  });

  it("refuses an unsafe source host in project settings with a message, then signs out", async () => {
    const page = alice.page;
    await go(page, `/t/${teamSlug}/p/website/settings`);
    await page.getByLabel("Allowed source hosts").waitFor();
    // The server's refusal is an answer shown at the field: the browser's console stays clean.
    const consoleErrors: string[] = [];
    const collect = (message: ConsoleMessage) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    };
    page.on("console", collect);
    await page.getByLabel("Allowed source hosts").fill(`${origin.host}\n10.0.0.1`);
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("alert").filter({ hasText: '"10.0.0.1" is not a valid source host' }).waitFor();
    page.off("console", collect);
    expect(consoleErrors).toEqual([]);
    expect(await page.getByLabel("Allowed source hosts").getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "16-project-settings-refused");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in/);
    await screenshot(page, "17-sign-in");
    await go(page, `/t/${teamSlug}`);
    await page.waitForURL(/\/sign-in\?next=/);
  });
});

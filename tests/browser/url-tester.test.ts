import type { Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, screenshot, startServedApp, type ServedApp } from "../support/browser";
import { need } from "../support/services";

/**
 * The Developer tab's URL tester in Chromium against the served app: it explains what the image route
 * answered (status, the error body's code and message, `info`'s JSON, an image's format, pixel size,
 * bytes and time), gives the signed URL as a link, and refuses at the source field a host the project
 * does not allow. The project allows `local` only; the embedded default serves demo/ as local/.
 */
const chromium = need("chromium");

describe.skipIf(chromium.skip)(chromium.title("the URL tester in Chromium"), () => {
  let app: ServedApp;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  const stamp = Date.now().toString(36);
  const teamSlug = `tester-${stamp}`;
  /** Every request the page made to the image route, in order. */
  const imageRequests: string[] = [];

  beforeAll(async () => {
    app = await startServedApp();
    browser = await openBrowser();
    browser.page.on("request", (request) => {
      if (new URL(request.url()).pathname.startsWith("/api/v1/")) imageRequests.push(request.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const tab = (page: Page, name: string) =>
    page.getByRole("navigation", { name: "Project" }).getByRole("link", { name }).click();
  const status = () => browser.page.getByRole("status");
  const fact = (name: string) => browser.page.getByTestId(`answer-${name}`).textContent();

  /** Signs in the tester and waits for the live region to say `says`; returns the time it took. */
  async function tryUrl(operations: string, source: string, says: RegExp): Promise<number> {
    const page = browser.page;
    const started = Date.now();
    await page.getByLabel("Operations").fill(operations);
    await page.getByLabel("Source").fill(source);
    await page.getByRole("button", { name: "Sign and preview" }).click();
    await expect.poll(() => status().textContent(), { timeout: 15_000 }).toMatch(says);
    return Date.now() - started;
  }

  it("signs up, creates a project that allows local/ sources, and a key", async () => {
    const page = browser.page;
    await page.goto(`${app.baseUrl}/sign-up`);
    await page.getByLabel("Name").fill("Tess");
    await page.getByLabel("Email").fill(`tess-${stamp}@example.com`);
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/onboarding/);
    await page.getByLabel("Team name").fill(`Tester ${stamp}`);
    await expect.poll(() => page.getByLabel("Team slug").inputValue()).toBe(teamSlug);
    await page.getByText("Available").waitFor();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}$`));
    await page.getByRole("button", { name: "New project" }).click();
    await page.getByLabel("Project name").fill("Gallery");
    await page.getByLabel("Allowed source hosts").fill("local");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.waitForURL(new RegExp(`/t/${teamSlug}/p/gallery$`));
    await tab(page, "API keys");
    await page.getByRole("button", { name: "New key" }).click();
    await page.getByLabel("Key name").fill("tester");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("I have stored the secret key").check();
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByTestId("api-key-row").getByText("active").waitFor();
    await tab(page, "Developer");
    await page.getByRole("button", { name: "Sign and preview" }).waitFor();
  });

  it("shows an image's status, format, pixel size, bytes and time, from one request, and links the URL", async () => {
    const page = browser.page;
    const before = imageRequests.length;
    const ms = await tryUrl("w_320,f_webp", "local/photo.jpg", /^Preview loaded\./);
    const signedUrl = (await page.getByTestId("copy-Signed URL (valid 1 hour)").textContent())!;
    expect(new URL(signedUrl).origin).toBe(app.baseUrl);
    expect(decodeURIComponent(new URL(signedUrl).pathname)).toBe("/api/v1/gallery/w_320,f_webp/local/photo.jpg");

    // What the route serves for that URL, read outside the browser.
    const served = Buffer.from(await (await fetch(signedUrl)).arrayBuffer());
    const { format, width, height } = await sharp(served).metadata();
    expect(format).toBe("webp");
    const size = `${width} × ${height} px`;
    expect(width).toBe(320);

    expect(await fact("status")).toBe("200 OK");
    expect(await fact("format")).toBe("image/webp");
    expect(await fact("pixel-size")).toBe(size);
    expect(await fact("bytes")).toMatch(new RegExp(`^${served.length.toLocaleString("en")} bytes \\(`));
    expect(await fact("time")).toMatch(/^\d+(\.\d)? ms$/);
    expect(await status().textContent()).toMatch(
      new RegExp(`^Preview loaded\\. 200 OK: image/webp, ${size}, [\\d.]+ KiB in \\d+(\\.\\d)? ms\\.$`),
    );
    expect(await page.getByTestId("preview-image").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320);
    // The preview shows the bytes the tester read: the page asked the route once, on its own origin.
    expect(imageRequests.slice(before)).toEqual([signedUrl]);

    const link = page.getByRole("link", { name: "Open the signed URL in a new tab" });
    expect(await link.getAttribute("href")).toBe(signedUrl);
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    await screenshot(page, "url-tester-1-image");
    console.log(`url tester: image answered and previewed in ${ms} ms`);
  });

  it("writes a typed caption into the operations as txt_, reads it back in words, and previews it drawn", async () => {
    const page = browser.page;
    await tryUrl("w_320,f_png", "local/photo.jpg", /^Preview loaded\./);
    const signed = async () => (await page.getByTestId("copy-Signed URL (valid 1 hour)").textContent())!;
    const plainUrl = await signed();
    await page.getByRole("button", { name: "Put the caption in the operations" }).click();
    // Nothing typed: refused at the field, the operations untouched.
    expect(await page.getByLabel("Caption").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Operations").inputValue()).toBe("w_320,f_png");

    const text = "€ 12,99 <b>&amp;</b> שלום";
    await page.getByLabel("Caption").fill(text);
    await page.getByRole("button", { name: "Put the caption in the operations" }).click();
    const token = `txt_${Buffer.from(text).toString("base64url")}`;
    expect(await page.getByLabel("Operations").inputValue()).toBe(`w_320,f_png,${token}`);
    expect(await page.getByTestId("caption-drawn").textContent()).toBe(`The operations draw “${text}”.`);
    await page.getByRole("button", { name: "Sign and preview" }).click();
    await expect
      .poll(async () => (await signed()) !== plainUrl && (await status().textContent()))
      .toMatch(/^Preview loaded\./);
    expect(await page.getByTestId("preview-image").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320);

    // The caption changed pixels, none in the top quarter: txt_ draws up from the bottom by default (southeast).
    const pixels = async (url: string) =>
      sharp(Buffer.from(await (await fetch(url)).arrayBuffer()))
        .raw()
        .toBuffer({ resolveWithObject: true });
    const [plain, captioned] = [await pixels(plainUrl), await pixels(await signed())];
    expect([captioned.info.width, captioned.info.height]).toEqual([plain.info.width, plain.info.height]);
    let changed = 0;
    let outside = 0;
    for (let at = 0; at < plain.data.length; at += plain.info.channels) {
      if (Math.abs(plain.data[at]! - captioned.data[at]!) < 8) continue;
      changed++;
      if (Math.floor(at / plain.info.channels / plain.info.width) < plain.info.height / 4) outside++;
    }
    expect(changed).toBeGreaterThan(300);
    expect(outside).toBe(0);

    await page.getByRole("button", { name: "Remove the caption" }).click();
    expect(await page.getByLabel("Operations").inputValue()).toBe("w_320,f_png");
    expect(await page.getByTestId("caption-drawn").textContent()).toBe("The operations draw no caption.");
    await screenshot(page, "url-tester-caption");
  });

  it("shows the JSON that info answered, and its palette as swatches named in text", async () => {
    const ms = await tryUrl("info", "local/photo.jpg", /^The server answered 200 OK with JSON/);
    const json = JSON.parse((await browser.page.getByTestId("answer-json").textContent())!) as {
      palette: { colour: string; share: number }[];
    };
    expect(json).toMatchObject({ width: 1600, height: 1067, format: "jpeg", frames: 1 });
    expect(json.palette.length).toBeGreaterThan(0);
    const swatches = browser.page.getByRole("list", { name: "Palette" }).getByRole("listitem");
    expect(await swatches.allTextContents()).toEqual(
      json.palette.map(({ colour, share }) => `${colour}${share < 0.005 ? "< 1 %" : `${Math.round(share * 100)} %`}`),
    );
    expect(await fact("format")).toBe("application/json");
    expect(await browser.page.getByTestId("preview-image").count()).toBe(0);
    await screenshot(browser.page, "url-tester-2-info");
    console.log(`url tester: info answered in ${ms} ms`);
  });

  it("says in words that info,g_face found no face in the sample landscape, and what a crop does then", async () => {
    await tryUrl("info,g_face", "local/photo.jpg", /^The server answered 200 OK with JSON/);
    const json = JSON.parse((await browser.page.getByTestId("answer-json").textContent())!) as { faces: unknown[] };
    expect(json.faces).toEqual([]);
    expect(await browser.page.getByTestId("faces-none").textContent()).toBe(
      "No face found: g_face keeps the centre of this image, g_auto what attention picks.",
    );
  });

  it("shows a missing local file's 404 with the error body's code and message", async () => {
    const ms = await tryUrl("w_100", "local/missing.jpg", /^The server refused the URL/);
    expect(await status().textContent()).toBe(
      "The server refused the URL: 404 Not Found, SOURCE_NOT_FOUND: Source image not found",
    );
    expect(await fact("status")).toBe("404 Not Found");
    expect(await fact("code")).toBe("SOURCE_NOT_FOUND");
    expect(await fact("message")).toBe("Source image not found");
    expect(await fact("request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await browser.page.getByTestId("preview-image").count()).toBe(0);
    await screenshot(browser.page, "url-tester-3-missing");
    console.log(`url tester: 404 explained in ${ms} ms`);
  });

  it("shows an unknown preset's 400 with its code and the message naming it", async () => {
    const ms = await tryUrl("pr_nope", "local/photo.jpg", /^The server refused the URL/);
    expect(await fact("status")).toBe("400 Bad Request");
    expect(await fact("code")).toBe("INVALID_OPERATION");
    expect(await fact("message")).toBe('Unknown preset "nope"');
    await screenshot(browser.page, "url-tester-4-unknown-preset");
    console.log(`url tester: 400 explained in ${ms} ms`);
  });

  it("refuses at the source field a host the project does not allow, naming the list to change, and signs nothing", async () => {
    const page = browser.page;
    const before = imageRequests.length;
    await page.getByLabel("Operations").fill("w_320");
    await page.getByLabel("Source").fill("images.example.com/photo.jpg");
    await page.getByRole("button", { name: "Sign and preview" }).click();
    await expect.poll(() => page.getByLabel("Source").getAttribute("aria-invalid")).toBe("true");
    // Within the form: Next's route announcer is an alert of its own.
    expect(await page.locator("form").getByRole("alert").allTextContents()).toEqual([
      "https://images.example.com is not one of this project's allowed source hosts: add it in Settings (Allowed source hosts)",
    ]);
    expect(await page.getByTestId("copy-Signed URL (valid 1 hour)").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Open the signed URL in a new tab" }).count()).toBe(0);
    expect(imageRequests.length).toBe(before);
    await screenshot(page, "url-tester-5-host-refused");
  });

  it("says so when the request never reaches the server", async () => {
    const page = browser.page;
    await page.route("**/api/v1/**", (route) => route.abort("internetdisconnected"));
    try {
      await tryUrl("w_100", "local/photo.jpg", /^The request did not reach the server/);
      expect(await page.getByTestId("answer-status").count()).toBe(0);
      // The signed URL is still given, to try elsewhere.
      expect(await page.getByRole("link", { name: "Open the signed URL in a new tab" }).count()).toBe(1);
      await screenshot(page, "url-tester-6-unreachable");
    } finally {
      await page.unroute("**/api/v1/**");
    }
  });
});

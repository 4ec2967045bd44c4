import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import {
  bootstrapProject,
  freePort,
  openBrowser,
  screenshot,
  startNext,
  startServedApp,
  type NextServer,
  type ServedApp,
} from "../support/browser";
import { need } from "../support/services";

/**
 * examples/nextjs as its users run it: the built example under `next start`, next to a built OptStuff
 * under `next start`, in Chromium. Every <Image> goes loader → the example's signing route → 302 →
 * OptStuff, and must arrive decoded at the width next/image asked for.
 */
const chromium = need("chromium");

describe.skipIf(chromium.skip)(chromium.title("the next/image example in Chromium"), () => {
  const EXAMPLE_DIR = "examples/nextjs";
  let optstuff: ServedApp;
  let example: NextServer;
  let exampleUrl: string;
  let secretKey: string;

  beforeAll(async () => {
    if (!existsSync(`${EXAMPLE_DIR}/.next/BUILD_ID`))
      throw new Error("Build the example first: npm run build --workspace examples/nextjs");
    const examplePort = await freePort();
    exampleUrl = `http://127.0.0.1:${examplePort}`;
    let vars: Record<string, string> = {};
    // The example's images live in its own public/ folder on loopback, which OptStuff refuses unless
    // told otherwise (a development setting).
    const loopback = { OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "true" };
    optstuff = await startServedApp(loopback, (dataDir) => {
      vars = bootstrapProject(dataDir, ["--sources", `127.0.0.1:${examplePort}`], loopback);
    });
    secretKey = vars.OPTSTUFF_SECRET_KEY!;
    const keys = {
      OPTSTUFF_BASE_URL: optstuff.baseUrl,
      OPTSTUFF_PROJECT_SLUG: vars.OPTSTUFF_PROJECT_SLUG!,
      OPTSTUFF_PUBLIC_KEY: vars.OPTSTUFF_PUBLIC_KEY!,
      OPTSTUFF_SECRET_KEY: secretKey,
    };
    example = await startNext(EXAMPLE_DIR, examplePort, { ...keys, SITE_URL: exampleUrl }, "/photos/logo.png");
  });

  afterAll(async () => {
    await example?.terminate();
    await optstuff?.stop();
  });

  it("renders every next/image through the signing route and OptStuff, decoded at the asked width", async () => {
    const html = await (await fetch(exampleUrl)).text();
    expect(html).not.toContain(secretKey);
    // Nothing that reads the secret is shipped to browsers.
    const shipped = readdirSync(`${EXAMPLE_DIR}/.next/static`, { recursive: true, encoding: "utf8" }).filter((file) =>
      file.endsWith(".js"),
    );
    expect(shipped.length).toBeGreaterThan(0);
    for (const file of shipped)
      expect(readFileSync(`${EXAMPLE_DIR}/.next/static/${file}`, "utf8"), file).not.toMatch(
        /OPTSTUFF_SECRET_KEY|secretKey/,
      );
    // The blur placeholder is painted from OptStuff's info (its ThumbHash), inlined by the server render.
    const blur = /data:image\/png;base64,([A-Za-z0-9+/=]+)/.exec(html);
    expect(blur).not.toBeNull();
    const placeholder = await sharp(Buffer.from(blur![1]!, "base64")).metadata();
    expect(Math.max(placeholder.width!, placeholder.height!)).toBeLessThanOrEqual(32);
    expect(placeholder.width! / placeholder.height!).toBeCloseTo(1600 / 1067, 0);

    const browser = await openBrowser({ width: 1280, height: 900 });
    try {
      const redirects: string[] = [];
      const statuses: number[] = [];
      const served: Array<Promise<{ operations: string; type: string | undefined; width: number | undefined }>> = [];
      browser.page.on("response", (response) => {
        const url = response.url();
        if (url.startsWith(`${exampleUrl}/api/image`))
          redirects.push(`${response.status()} ${response.headers()["location"]}`);
        if (url.startsWith(`${optstuff.baseUrl}/api/v1/`)) {
          statuses.push(response.status());
          const operations = decodeURIComponent(new URL(url).pathname.split("/")[4]!);
          if (response.status() === 200)
            served.push(
              response.body().then(async (body) => ({
                operations,
                type: response.headers()["content-type"],
                width: (await sharp(body).metadata()).width,
              })),
            );
        }
      });
      await browser.page.goto(exampleUrl, { waitUntil: "load" });
      // next/image loads lazily by default, and a lazy image does not hold up the load event: wait for
      // every image to finish (a cold transform process can take a second to start on a loaded machine).
      await browser.page.waitForFunction(() => [...document.images].every((img) => img.complete), undefined, {
        timeout: 20_000,
      });
      const rendered = await browser.page.$$eval("img", (imgs) =>
        imgs.map((img) => ({
          alt: img.alt,
          complete: img.complete,
          naturalWidth: img.naturalWidth,
          currentSrc: img.currentSrc,
        })),
      );
      await screenshot(browser.page, "example-nextjs");

      expect(rendered.map((img) => img.alt)).toEqual(["Hills at sunset", "OptStuff logo"]);
      for (const img of rendered) {
        expect(img.complete && img.naturalWidth > 0, `${img.alt} decoded`).toBe(true);
        expect(new URL(img.currentSrc).pathname, img.alt).toBe("/api/image");
      }
      // 800 CSS px at DPR 1 picks the 828 device size, the 128 px logo its 1x candidate; what OptStuff
      // sent decodes at exactly those widths, as AVIF since Chromium accepts it (f_auto), except that a
      // cold 828 px AVIF is answered WebP first while the AVIF is made (OPTSTUFF_AVIF_LATER_MIN_PIXELS).
      const asked = rendered.map((img) => Number(new URL(img.currentSrc).searchParams.get("w")));
      expect(asked).toEqual([828, 128]);
      expect(redirects).toHaveLength(2);
      for (const redirect of redirects) expect(redirect).toMatch(new RegExp(`^302 ${optstuff.baseUrl}/api/v1/`));
      // Signed URLs with a full source URL write `http%3A/host`: no 308 from Next's `//` normalisation.
      expect(statuses).toEqual([200, 200]);
      const images = (await Promise.all(served)).sort((a, b) => (b.width ?? 0) - (a.width ?? 0));
      expect(images).toEqual([
        { operations: "w_828,q_75,f_auto", type: "image/webp", width: 828 },
        { operations: "w_128,q_75,f_auto", type: "image/avif", width: 128 },
      ]);
    } finally {
      await browser.close();
    }
  });
});

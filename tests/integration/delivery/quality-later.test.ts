import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { createTestApp, type TestApp } from "../../support/app";
import { animatedGif } from "../image/generate";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

/** Chromium's Accept for images: AVIF first. */
const CHROME = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
const INTERIM_CACHE = "public, max-age=60, s-maxage=60";
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect x="8" y="8" width="48" height="48" fill="#2a6"/></svg>';

let app: TestApp;
let origin: Origin;
beforeAll(async () => {
  origin = await startOrigin({
    "/spinner.gif": serveBytes(
      await animatedGif(400, 300, [
        [192, 57, 43],
        [39, 174, 96],
        [41, 128, 185],
      ]),
      "image/gif",
    ),
    "/icon.svg": serveBytes(Buffer.from(SVG), "image/svg+xml"),
  });
  app = await createTestApp({
    sourceHosts: ["local", origin.host],
    env: { OPTSTUFF_QUALITY_LATER: "on", OPTSTUFF_AVIF_LATER_MIN_PIXELS: "250000" },
  });
}, 30_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const get = (operations: string, accept = CHROME, headers: Record<string, string> = {}, source = "local/photo.jpg") =>
  app.fetch(app.signedPath(operations, source), { headers: { accept, ...headers } });

async function laterEntries(operations: string, count: number): Promise<RequestOutcome[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = app.outcomes.filter((o) => o.cache === "later" && o.operations === operations);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe("q_auto and f_best without the wait", () => {
  it("answers a cold q_auto at the format's default quality, short-lived, then the searched one", async () => {
    const first = await get("w_800,f_avif,q_auto");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/avif");
    expect(first.headers.get("cache-control")).toBe(INTERIM_CACHE);
    expect(first.headers.get("x-optstuff-quality")).toBeNull();
    const interim = await bytesOf(first);
    // The same bytes the fixed-quality URL answers: the format's default, made or reused.
    const fixed = await get("w_800,f_avif");
    expect((await bytesOf(fixed)).equals(interim)).toBe(true);
    expect(fixed.headers.get("cache-control")).toContain("immutable");

    const [later] = await laterEntries("w_800,f_avif,q_auto", 1);
    expect(later).toMatchObject({ status: "success", outputFormat: "avif", sentBytes: 0, cache: "later" });
    expect(later!.measured?.score).toBeGreaterThan(0);

    const second = await get("w_800,f_avif,q_auto");
    expect(second.headers.get("cache-control")).toContain("immutable");
    expect(second.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(second.headers.get("x-optstuff-quality")).toMatch(/^\d+; score=\d+(\.\d+)?/);
    const searched = await bytesOf(second);
    expect(searched.equals(interim)).toBe(false);
    expect((await sharp(searched).metadata()).width).toBe(800);
    expect(searched.length).toBe(later!.outputBytes);
    // A browser that kept the interim answer revalidates it and gets the searched one.
    const revalidated = await get("w_800,f_avif,q_auto", CHROME, { "if-none-match": first.headers.get("etag")! });
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.get("etag")).toBe(second.headers.get("etag"));
  });

  it("records the interim answer under the quality that made it, the searched one under q_auto", async () => {
    await get("w_760,f_webp,q_auto:eco");
    await laterEntries("w_760,f_webp,q_auto:eco", 1);
    await get("w_760,f_webp,q_auto:eco");
    await app.settled();
    const answers = app.outcomes.filter((o) => o.operations === "w_760,f_webp,q_auto:eco" && o.cache !== "later");
    expect(answers.map((o) => [o.cache, o.qualityMode, o.measured !== undefined])).toEqual([
      ["miss", "fixed", false],
      ["hit", "q_auto:eco", true],
    ]);
  });

  it("answers f_best first as f_auto would, WebP where the AVIF would be slow, then the smallest that reaches", async () => {
    const first = await get("w_800,f_best");
    expect(first.headers.get("content-type")).toBe("image/webp");
    expect(first.headers.get("cache-control")).toBe(INTERIM_CACHE);
    const [later] = await laterEntries("w_800,f_best", 1);
    expect(["avif", "webp"]).toContain(later!.outputFormat);
    const final = await get("w_800,f_best");
    expect(final.headers.get("cache-control")).toContain("immutable");
    expect(final.headers.get("x-optstuff-quality")).toMatch(/score=/);
    expect(final.headers.get("content-type")).toBe(`image/${later!.outputFormat}`);
  });

  it("under the AVIF threshold, answers f_best's interim in AVIF at its default quality", async () => {
    const first = await get("w_300,f_best");
    expect(first.headers.get("content-type")).toBe("image/avif");
    expect(first.headers.get("cache-control")).toBe(INTERIM_CACHE);
    const fixed = await bytesOf(await get("w_300,f_auto"));
    expect((await bytesOf(first)).equals(fixed)).toBe(true);
    await laterEntries("w_300,f_best", 1);
    expect((await get("w_300,f_best")).headers.get("cache-control")).toContain("immutable");
  });

  it("concurrent cold requests all get the interim answer, and the search runs once", async () => {
    const answers = await Promise.all([1, 2, 3].map(() => get("w_720,f_webp,q_auto")));
    expect(answers.map((a) => a.headers.get("cache-control"))).toEqual([INTERIM_CACHE, INTERIM_CACHE, INTERIM_CACHE]);
    await laterEntries("w_720,f_webp,q_auto", 1);
    await app.settled();
    expect(app.outcomes.filter((o) => o.cache === "later" && o.operations === "w_720,f_webp,q_auto")).toHaveLength(1);
    expect((await get("w_720,f_webp,q_auto")).headers.get("x-optstuff-quality")).toMatch(/score=/);
  });

  it("a cold HEAD gets the interim headers and starts the search; a signature about to expire shortens them", async () => {
    const head = await app.fetch(app.signedPath("w_680,f_webp,q_auto", "local/photo.jpg"), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("cache-control")).toBe(INTERIM_CACHE);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    await laterEntries("w_680,f_webp,q_auto", 1);
    expect((await get("w_680,f_webp,q_auto")).headers.get("x-optstuff-quality")).toMatch(/score=/);

    const exp = Math.floor(Date.now() / 1000) + 20;
    const soon = await app.fetch(app.signedPath("w_690,f_webp,q_auto", "local/photo.jpg", { exp }));
    const seconds = Number(/max-age=(\d+)/.exec(soon.headers.get("cache-control") ?? "")?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(20);
    expect(soon.headers.get("cache-control")).not.toContain("immutable");
  });

  it.each([
    ["PNG output, which the search does not take", "w_500,f_png,q_auto", "local/photo.jpg", "image/png", 1],
    ["an animation, never searched", "w_300,f_webp,q_auto", "spinner", "image/webp", 3],
  ])("answers %s as final at once: immutable, nothing made later", async (_, ops, source, type, frames) => {
    const from = source === "spinner" ? `http://${origin.host}/spinner.gif` : source;
    const first = await get(ops, CHROME, {}, from);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe(type);
    expect(first.headers.get("cache-control")).toContain("immutable");
    expect((await sharp(await bytesOf(first), { animated: true }).metadata()).pages ?? 1).toBe(frames);
    const second = await get(ops, CHROME, {}, from);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    await app.settled();
    const made = app.outcomes.filter((o) => o.operations === ops);
    expect(made.map((o) => o.cache)).toEqual(["miss", "hit"]);
  });

  it("an SVG with q_auto alone waits for its PNG; the URL without operations still passes the SVG through", async () => {
    const svg = `http://${origin.host}/icon.svg`;
    const searched = await get("q_auto", "image/webp", {}, svg);
    expect(searched.headers.get("content-type")).toBe("image/png");
    expect(searched.headers.get("cache-control")).toContain("immutable");
    const plain = await get("_", "image/webp", {}, svg);
    expect(plain.headers.get("content-type")).toBe("image/svg+xml");
    expect(plain.headers.get("etag")).not.toBe(searched.headers.get("etag"));
    // The other order, on a fresh variant: the same answers.
    const widthFirst = await get("w_32", "image/webp", {}, svg);
    expect(widthFirst.headers.get("content-type")).toBe("image/png");
    const interim = await get("w_32,q_auto", "image/webp", {}, svg);
    expect(interim.headers.get("content-type")).toBe("image/png");
    expect((await bytesOf(interim)).equals(await bytesOf(widthFirst))).toBe(true);
  });

  it("a named format's interim and its 304 carry no Vary: Accept", async () => {
    const first = await get("w_740,f_webp,q_auto");
    expect(first.headers.get("cache-control")).toBe(INTERIM_CACHE);
    expect(first.headers.get("vary")).toBeNull();
    const again = await get("w_740,f_webp,q_auto", CHROME, { "if-none-match": first.headers.get("etag")! });
    // A 304 while the search runs, or the searched answer if it was quicker: neither varies by Accept.
    expect([200, 304]).toContain(again.status);
    expect(again.headers.get("vary")).toBeNull();
    await laterEntries("w_740,f_webp,q_auto", 1);
  });

  it("Save-Data: the interim is the fixed URL's Save-Data answer, the search asks the next level down", async () => {
    const headers = { "sec-ch-width": "640", "save-data": "on" };
    const interim = await get("w_auto,f_webp,q_auto", CHROME, headers);
    expect(interim.headers.get("cache-control")).toBe(INTERIM_CACHE);
    const interimBytes = await bytesOf(interim);
    const fixed = await get("w_auto,f_webp", CHROME, headers);
    expect((await bytesOf(fixed)).equals(interimBytes)).toBe(true);
    const full = await bytesOf(await get("w_auto,f_webp", CHROME, { "sec-ch-width": "640" }));
    expect(interimBytes.length).toBeLessThan(full.length);
    const [later] = await laterEntries("w_auto,f_webp,q_auto", 1);
    expect(later!.measured?.score).toBeGreaterThan(0);
  });

  it("never answers info or a placeholder in two steps", async () => {
    const info = await get("w_600,f_webp,q_auto,info");
    expect(info.headers.get("content-type")).toContain("application/json");
    expect(info.headers.get("cache-control")).toContain("immutable");
    const placeholder = await get("w_600,f_best,placeholder");
    expect(placeholder.headers.get("cache-control")).toContain("immutable");
    await app.settled();
    expect(app.outcomes.filter((o) => o.cache === "later" && /info|placeholder/.test(o.operations ?? ""))).toEqual([]);
  });
});

describe("an interim answer over the response cap, without a bucket", () => {
  it("is refused with 413, and the searched answer, which fits, is made and served after", async () => {
    const capped = await createTestApp({
      env: { OPTSTUFF_QUALITY_LATER: "on", OPTSTUFF_RESPONSE_MAX_BYTES: "100000" },
    });
    try {
      const path = capped.signedPath("w_1600,f_jpg,q_auto:low", "local/photo.jpg");
      const first = await capped.fetch(path);
      expect(first.status).toBe(413);
      expect(((await first.json()) as { code: string }).code).toBe("OUTPUT_TOO_LARGE");
      const deadline = Date.now() + 60_000;
      while (!capped.outcomes.some((o) => o.cache === "later") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const second = await capped.fetch(path);
      expect(second.status).toBe(200);
      expect(second.headers.get("cache-control")).toContain("immutable");
      expect(second.headers.get("x-optstuff-quality")).toMatch(/score=/);
      expect((await bytesOf(second)).length).toBeLessThanOrEqual(100_000);
    } finally {
      await capped.close();
    }
  });
});

describe("with OPTSTUFF_QUALITY_LATER off", () => {
  it("waits for the search on the first request", async () => {
    const waiting = await createTestApp({ env: { OPTSTUFF_QUALITY_LATER: "off" } });
    try {
      const first = await waiting.fetch(waiting.signedPath("w_500,f_webp,q_auto", "local/photo.jpg"));
      expect(first.headers.get("cache-control")).toContain("immutable");
      expect(first.headers.get("x-optstuff-quality")).toMatch(/score=/);
    } finally {
      await waiting.close();
    }
  });
});

import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { clearOfWindowEdge } from "../../support/clock";
import { createTestApp, type TestApp } from "../../support/app";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { setupAudit } from "../../support/audit";

/** Chromium's Accept for images: AVIF first. */
const CHROME = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
const INTERIM_CACHE = "public, max-age=60, s-maxage=60";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { OPTSTUFF_AVIF_LATER_MIN_PIXELS: "100000" } });
}, 30_000);
afterAll(() => app.close());

const get = (operations: string, accept = CHROME, headers: Record<string, string> = {}) =>
  app.fetch(app.signedPath(operations, "local/photo.jpg"), { headers: { accept, ...headers } });

async function laterEntries(operations: string, count: number): Promise<RequestOutcome[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = app.outcomes.filter((o) => o.cache === "later" && o.operations === operations);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function formatOf(response: Response): Promise<{ format?: string; width?: number }> {
  const { format, width } = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
  return { format, width };
}

describe("AVIF without the wait", () => {
  it("answers a cold AVIF request with the WebP at once, short-lived, then the AVIF from then on", async () => {
    const first = await get("w_600,f_auto");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/webp");
    expect(first.headers.get("cache-control")).toBe(INTERIM_CACHE);
    expect(first.headers.get("cdn-cache-control")).toBe("public, max-age=60");
    expect(first.headers.get("vary")).toBe("Accept");
    expect(await formatOf(first)).toEqual({ format: "webp", width: 600 });

    // The AVIF is made after the answer, once, and logged as work done later (nothing sent).
    const [later] = await laterEntries("w_600,f_auto", 1);
    expect(later).toMatchObject({ status: "success", outputFormat: "avif", sentBytes: 0, cache: "later" });

    const second = await get("w_600,f_auto");
    expect(second.headers.get("content-type")).toBe("image/avif");
    expect(second.headers.get("cache-control")).toContain("immutable");
    expect(second.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(await formatOf(second)).toEqual({ format: "heif", width: 600 });
    // A browser that kept the interim answer revalidates it and gets the AVIF, not a 304.
    const revalidated = await get("w_600,f_auto", CHROME, { "if-none-match": first.headers.get("etag")! });
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.get("content-type")).toBe("image/avif");
    const current = await get("w_600,f_auto", CHROME, { "if-none-match": second.headers.get("etag")! });
    expect(current.status).toBe(304);
  });

  it("answers a revalidation of the interim answer with a 304 while the AVIF is being made", async () => {
    const first = await get("w_660,f_auto");
    expect(first.headers.get("content-type")).toBe("image/webp");
    // At once: the AVIF takes a transform process far longer than this request.
    const revalidated = await get("w_660,f_auto", CHROME, { "if-none-match": first.headers.get("etag")! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(revalidated.headers.get("cache-control")).toBe(INTERIM_CACHE);
    expect(revalidated.headers.get("vary")).toBe("Accept");
    await laterEntries("w_660,f_auto", 1);
    const final = await get("w_660,f_auto", CHROME, { "if-none-match": first.headers.get("etag")! });
    expect(final.status).toBe(200);
    expect(final.headers.get("content-type")).toBe("image/avif");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(app.outcomes.filter((o) => o.cache === "later" && o.operations === "w_660,f_auto")).toHaveLength(1);
  });

  it("concurrent cold requests all get the interim answer, and the AVIF is made once", async () => {
    const answers = await Promise.all([1, 2, 3].map(() => get("w_640,f_auto")));
    expect(answers.map((a) => a.headers.get("content-type"))).toEqual(["image/webp", "image/webp", "image/webp"]);
    await laterEntries("w_640,f_auto", 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.outcomes.filter((o) => o.cache === "later" && o.operations === "w_640,f_auto")).toHaveLength(1);
    expect((await get("w_640,f_auto")).headers.get("content-type")).toBe("image/avif");
  });

  it("makes every AVIF of a burst of cold requests (a srcset), one after another, and loses none", async () => {
    // More than the scheduler's queue lets background work hold at once (half a tenant's share).
    const widths = [500, 510, 520, 530, 540, 550, 560, 570];
    const first = await Promise.all(widths.map((w) => get(`w_${w},f_auto`)));
    expect(first.map((r) => r.headers.get("content-type"))).toEqual(widths.map(() => "image/webp"));
    for (const w of widths) await laterEntries(`w_${w},f_auto`, 1);
    const second = await Promise.all(widths.map((w) => get(`w_${w},f_auto`)));
    expect(second.map((r) => r.headers.get("content-type"))).toEqual(widths.map(() => "image/avif"));
    // Eight AVIFs made at background priority, which yields to everything else on a busy machine.
  }, 180_000);

  it("waits for the AVIF when it is small, named, or not wanted", async () => {
    const small = await get("w_200,f_auto");
    expect(small.headers.get("content-type")).toBe("image/avif");
    expect(small.headers.get("cache-control")).toContain("immutable");
    const named = await get("w_600,f_avif");
    expect(named.headers.get("content-type")).toBe("image/avif");
    const webpOnly = await get("w_700,f_auto", "image/webp,*/*");
    expect(webpOnly.headers.get("content-type")).toBe("image/webp");
    expect(webpOnly.headers.get("cache-control")).toContain("immutable");
    await app.settled();
    expect(app.outcomes.filter((o) => o.cache === "later" && /w_(200|700)|f_avif/.test(o.operations ?? ""))).toEqual(
      [],
    );
  });

  it("makes f_best's AVIF later too, at its level, and reports the choice on the final answer", async () => {
    const first = await get("w_600,f_best");
    expect(first.headers.get("content-type")).toBe("image/webp");
    expect(first.headers.get("cache-control")).toBe(INTERIM_CACHE);
    const [later] = await laterEntries("w_600,f_best", 1);
    expect(["avif", "webp"]).toContain(later!.outputFormat);
    const final = await get("w_600,f_best");
    expect(final.headers.get("cache-control")).toContain("immutable");
    expect(final.headers.get("x-optstuff-quality")).toMatch(/score=/);
  });

  it("charges the key for the later encode as a transform of its own", async () => {
    await clearOfWindowEdge();
    const key = await createApiKey(
      { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
      { projectId: app.projectId },
      { name: "later-limits" },
    );
    await app.services.database.db.update(apiKeys).set({ rateLimitPerMinute: 2 }).where(eq(apiKeys.id, key.id));
    const signed = (operations: string) =>
      app.fetch(app.signedPath(operations, "local/photo.jpg", { key }), { headers: { accept: CHROME } });
    // One transform now (the WebP), one after (the AVIF): the key's two per minute are spent.
    expect((await signed("w_610,f_auto")).headers.get("content-type")).toBe("image/webp");
    await laterEntries("w_610,f_auto", 1);
    const refused = await signed("w_620,f_auto");
    expect(refused.status).toBe(429);
    // What is made is still served: the stored AVIF costs the key no transform.
    expect((await signed("w_610,f_auto")).headers.get("content-type")).toBe("image/avif");
  });
});

describe("an interim answer that is final already", () => {
  let app: TestApp;
  let origin: Origin;
  beforeAll(async () => {
    const frames = await Promise.all(
      ["#c0392b", "#27ae60", "#2980b9"].map((colour) =>
        sharp({ create: { width: 600, height: 500, channels: 3, background: colour } })
          .png()
          .toBuffer(),
      ),
    );
    const gif = await sharp(frames, { join: { animated: true } })
      .gif({ delay: [100, 100, 100], loop: 0 })
      .toBuffer();
    origin = await startOrigin({ "/spinner.gif": serveBytes(gif, "image/gif") });
    // The demo photo (1600×1067) is over this AVIF area: f_auto answers it WebP whatever the Accept.
    app = await createTestApp({
      env: { OPTSTUFF_AVIF_LATER_MIN_PIXELS: "100000", OPTSTUFF_MAX_AVIF_PIXELS: "1000000" },
      sourceHosts: ["local", origin.host],
    });
  }, 30_000);
  afterAll(async () => {
    await app?.close();
    await origin?.close();
  });

  it.each([
    ["an animation", () => `http://${origin.host}/spinner.gif`, 3],
    ["an output over AVIF's area", () => "local/photo.jpg", 1],
  ])("is answered as final for %s: immutable, made once, nothing made later", async (_, source, frames) => {
    const path = app.signedPath("f_auto", source());
    const first = await app.fetch(path, { headers: { accept: CHROME } });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/webp");
    expect(first.headers.get("cache-control")).toContain("immutable");
    expect(first.headers.get("vary")).toBe("Accept");
    const metadata = await sharp(Buffer.from(await first.arrayBuffer())).metadata();
    expect(metadata.pages ?? 1).toBe(frames);
    const second = await app.fetch(path, { headers: { accept: CHROME } });
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(second.headers.get("content-type")).toBe("image/webp");
    expect(
      (await app.fetch(path, { headers: { accept: CHROME, "if-none-match": first.headers.get("etag")! } })).status,
    ).toBe(304);
    await app.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const made = app.outcomes.filter((o) => o.sourceUrl?.includes(source().replace(/^http:\/\//, "")));
    expect(made.map((o) => o.cache)).toEqual(["miss", "hit", "revalidated"]);
  });
});

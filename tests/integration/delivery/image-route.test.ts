import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "@/server/db/schema";
import { generateKeyPair } from "@/server/signing";
import { createTestApp, type TestApp } from "../../support/app";
import { makeJpeg, makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

let app: TestApp;
let origin: Origin;
let photoHits = 0;

beforeAll(async () => {
  const [photo, logo] = await Promise.all([makeJpeg(1200, 800), makePng(400, 400)]);
  origin = await startOrigin({
    "/photo.jpg": (req, res) => {
      photoHits++;
      serveBytes(photo, "image/jpeg")(req, res);
    },
    "/logo.png": serveBytes(logo, "image/png"),
    "/a%20b.png": serveBytes(logo, "image/png"),
    "/gone.png": (_req, res) => void res.writeHead(410).end(),
    "/broken.png": (_req, res) => void res.writeHead(500).end("boom"),
  });
  // No result cache here: revalidation and coalescing must be proven without it.
  app = await createTestApp({ sourceHosts: [origin.host, "local"], env: { OPTSTUFF_RESULT_CACHE_BYTES: "0" } });
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const remote = (path: string) => `http://${origin.host}${path}`;

async function errorOf(
  response: Response,
): Promise<{ status: number; code: string; error: string; requestId: string }> {
  const body = (await response.json()) as { code: string; error: string; requestId: string };
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("x-request-id")).toBe(body.requestId);
  return { status: response.status, ...body };
}

describe("image route: success", () => {
  it("resizes and converts a remote JPEG, with the contract's headers", async () => {
    const response = await app.fetch(app.signedPath("w_600,f_webp", remote("/photo.jpg")));
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    const meta = await sharp(body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 600, 400]);
    expect(response.headers.get("content-type")).toBe("image/webp");
    expect(response.headers.get("content-length")).toBe(String(body.length));
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, s-maxage=31536000, immutable");
    expect(response.headers.get("cdn-cache-control")).toBe("public, max-age=31536000");
    expect(response.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("vary")).toBeNull();
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const timing = response.headers.get("server-timing") ?? "";
    for (const phase of ["auth", "fetch", "transform", "total"]) expect(timing).toContain(`${phase};dur=`);
  });

  it("serves the local demo root and keeps the source format without f_", async () => {
    const response = await app.fetch(app.signedPath("w_100", "local/photo.jpg"));
    const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect([response.status, meta.format, meta.width]).toEqual([200, "jpeg", 100]);
  });

  it("negotiates f_auto from Accept and says Vary: Accept", async () => {
    const path = app.signedPath("w_64,f_auto", remote("/logo.png"));
    const avif = await app.fetch(path, { headers: { Accept: "image/avif,image/webp,*/*" } });
    expect(avif.headers.get("content-type")).toBe("image/avif");
    expect(avif.headers.get("vary")).toBe("Accept");
    const webp = await app.fetch(path, { headers: { Accept: "image/webp,*/*" } });
    expect(webp.headers.get("content-type")).toBe("image/webp");
    expect(webp.headers.get("etag")).not.toBe(avif.headers.get("etag"));
    const fallback = await app.fetch(path, { headers: { Accept: "*/*" } });
    expect((await sharp(Buffer.from(await fallback.arrayBuffer())).metadata()).format).toBe("png");
  });

  it("w_auto and dpr_auto follow the browser's client hints in steps, and say Vary and Accept-CH for them", async () => {
    const path = app.signedPath("w_auto_200,dpr_auto,f_webp", remote("/photo.jpg"));
    const widthOf = async (response: Response) =>
      (await sharp(Buffer.from(await response.arrayBuffer())).metadata()).width;
    const hinted = await app.fetch(path, { headers: { "Sec-CH-Width": "500", "Sec-CH-DPR": "1" } });
    expect(hinted.status).toBe(200);
    expect(await widthOf(hinted)).toBe(640);
    expect(hinted.headers.get("vary")).toBe("Sec-CH-DPR, Sec-CH-Width, Save-Data");
    expect(hinted.headers.get("accept-ch")).toBe("Sec-CH-DPR, Sec-CH-Width, Save-Data");
    // 600 device px at DPR 2 round up to the same 640 device px; 520 at DPR 1 is the 640 step again, so
    // its ETag answers 304 before any work.
    const retina = await app.fetch(path, { headers: { "Sec-CH-Width": "600", "Sec-CH-DPR": "2" } });
    expect(await widthOf(retina)).toBe(640);
    const again = await app.fetch(path, {
      headers: { "Sec-CH-Width": "520", "Sec-CH-DPR": "1", "If-None-Match": hinted.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("vary")).toBe("Sec-CH-DPR, Sec-CH-Width, Save-Data");
    // No hints (Safari, Firefox): the fallback width; a hostile value counts as none.
    const plain = await app.fetch(path, { headers: { "Sec-CH-Width": "1e9" } });
    expect(await widthOf(plain)).toBe(200);
    expect(plain.headers.get("etag")).not.toBe(hinted.headers.get("etag"));
    const saving = await app.fetch(path, { headers: { "Sec-CH-Width": "500", "Save-Data": "on" } });
    expect(await widthOf(saving)).toBe(640);
    expect(saving.headers.get("etag")).not.toBe(hinted.headers.get("etag"));
  });

  it("ignores client hints without the opt-in, and varies on nothing for them", async () => {
    const response = await app.fetch(app.signedPath("w_150,f_webp", remote("/photo.jpg")), {
      headers: { "Sec-CH-Width": "900", "Sec-CH-DPR": "3", "Save-Data": "on" },
    });
    expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).width).toBe(150);
    expect(response.headers.get("vary")).toBeNull();
    expect(response.headers.get("accept-ch")).toBeNull();
  });

  it("answers info as cacheable JSON about the source, signed like an image, 304 on its ETag", async () => {
    const path = app.signedPath("info", remote("/photo.jpg"));
    const response = await app.fetch(path);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toContain("immutable");
    expect(response.headers.get("vary")).toBeNull();
    const info = (await response.json()) as {
      width: number;
      height: number;
      format: string;
      thumbhash: string;
      blurhash: string;
    };
    expect(info).toMatchObject({ width: 1200, height: 800, format: "jpeg" });
    expect(Buffer.from(info.thumbhash, "base64").length).toBeGreaterThan(5);
    const hits = photoHits;
    const revalidated = await app.fetch(path, { headers: { "If-None-Match": response.headers.get("etag")! } });
    expect(revalidated.status).toBe(304);
    expect(photoHits).toBe(hits);
    // Beside operations, info describes their output too (docs/url-format.md, Info).
    const mixed = await app.fetch(app.signedPath("info,w_100", remote("/photo.jpg")));
    expect(mixed.status).toBe(200);
    expect(((await mixed.json()) as { output: { width: number } }).output.width).toBe(100);
    const refused = await app.fetch(app.signedPath("info,placeholder", remote("/photo.jpg")));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe("INVALID_OPERATION");
  });

  it("answers a matching If-None-Match with 304 without fetching or transforming again", async () => {
    const path = app.signedPath("w_300,f_webp", remote("/photo.jpg"));
    const first = await app.fetch(path);
    const etag = first.headers.get("etag")!;
    const hits = photoHits;
    const revalidated = await app.fetch(path, { headers: { "If-None-Match": `W/"other", ${etag}` } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe("");
    expect(revalidated.headers.get("etag")).toBe(etag);
    expect(revalidated.headers.get("cache-control")).toContain("immutable");
    expect(photoHits).toBe(hits);
  });

  it("answers HEAD with the GET's status and headers and no body", async () => {
    const path = app.signedPath("w_200,f_png", remote("/logo.png"));
    const head = await app.fetch(path, { method: "HEAD" });
    const get = await app.fetch(path);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
  });

  it("bounds caching by exp", async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const response = await app.fetch(app.signedPath("w_50", remote("/logo.png"), { exp }));
    expect(response.status).toBe(200);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control") ?? "")?.[1]);
    expect(maxAge).toBeGreaterThan(590);
    expect(maxAge).toBeLessThanOrEqual(600);
    expect(response.headers.get("cache-control")).not.toContain("immutable");
  });

  it("ignores unsigned query parameters: same variant, no second transform", async () => {
    const path = app.signedPath("w_123,f_webp", remote("/photo.jpg"));
    const first = await app.fetch(path);
    const hits = photoHits;
    const busted = await app.fetch(`${path}&v=2&cachebust=${Date.now()}`, {
      headers: { "If-None-Match": first.headers.get("etag")! },
    });
    expect(busted.status).toBe(304);
    expect(photoHits).toBe(hits);
  });

  it("shares one fetch and transform among concurrent identical requests", async () => {
    const path = app.signedPath("w_321,f_webp", remote("/photo.jpg"));
    const hits = photoHits;
    const responses = await Promise.all(Array.from({ length: 6 }, () => app.fetch(path)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(photoHits - hits).toBe(1);
  });

  it("fetches a source whose path carries a percent-encoding exactly once decoded (vector 7)", async () => {
    const response = await app.fetch(app.signedPath("w_100", remote("/a%20b.png")));
    expect(response.status).toBe(200);
  });
});

describe("image route: refusals", () => {
  it("refuses a forged signature, a tampered operation and a tampered exp with one generic 403", async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const path = app.signedPath("w_100", remote("/logo.png"), { exp });
    const forged = await errorOf(await app.fetch(path.replace(/sig=[^&]+/, `sig=${"A".repeat(32)}`)));
    const tamperedOps = await errorOf(await app.fetch(path.replace("/w_100/", "/w_101/")));
    const tamperedExp = await errorOf(await app.fetch(path.replace(`exp=${exp}`, `exp=${exp + 1}`)));
    for (const e of [forged, tamperedOps, tamperedExp])
      expect([e.status, e.code, e.error]).toEqual([403, "FORBIDDEN", "Forbidden"]);
    await app.settled();
    expect(app.outcomes.some((o) => o.status === "sig_invalid")).toBe(true);
  });

  it("refuses an expired signature with its own message", async () => {
    const exp = Math.floor(Date.now() / 1000) - 1;
    const e = await errorOf(await app.fetch(app.signedPath("w_100", remote("/logo.png"), { exp })));
    expect([e.status, e.error]).toEqual([403, "Signature has expired"]);
  });

  it("refuses missing, malformed, unknown, revoked, expired and foreign keys with 401", async () => {
    const path = app.signedPath("w_100", remote("/logo.png"));
    expect((await errorOf(await app.fetch(path.replace(/key=[^&]+&/, "")))).code).toBe("MISSING_CREDENTIALS");
    expect((await errorOf(await app.fetch(path.replace(/key=[^&]+/, "key=pk_short")))).code).toBe("INVALID_KEY");
    const stranger = generateKeyPair();
    expect((await errorOf(await app.fetch(app.signedPath("w_100", remote("/logo.png"), { key: stranger })))).code).toBe(
      "INVALID_KEY",
    );
    expect(
      (await errorOf(await app.fetch(app.signedPath("w_100", remote("/logo.png"), { slug: "other-project" })))).code,
    ).toBe("KEY_PROJECT_MISMATCH");

    const db = app.services.database.db;
    // Every write path invalidates the config cache; so do these direct writes.
    const invalidate = () => app.services.invalidate.apiKeys([app.key.publicKey]);
    await db
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiKeys.id, app.key.id));
    await invalidate();
    expect((await errorOf(await app.fetch(path))).code).toBe("KEY_EXPIRED");
    await db.update(apiKeys).set({ expiresAt: null, revokedAt: new Date() }).where(eq(apiKeys.id, app.key.id));
    await invalidate();
    expect((await errorOf(await app.fetch(path))).code).toBe("KEY_REVOKED");
    await db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, app.key.id));
    await invalidate();
    expect((await app.fetch(path)).status).toBe(200);
  });

  it("names an unknown operation in a 400", async () => {
    const e = await errorOf(await app.fetch(app.signedPath("w_100,zoom_3", remote("/logo.png"))));
    expect([e.status, e.code]).toEqual([400, "UNKNOWN_OPERATION"]);
    expect(e.error).toContain("zoom_3");
  });

  it("refuses sources outside the allowlist with the generic 403 and never contacts them", async () => {
    const other = await startOrigin({ "/x.png": serveBytes(await makePng(10, 10), "image/png") });
    try {
      const e = await errorOf(await app.fetch(app.signedPath("w_10", `http://${other.host}/x.png`)));
      expect([e.status, e.code]).toEqual([403, "FORBIDDEN"]);
      expect(other.connections()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it("maps origin answers: 404, 410, 5xx", async () => {
    expect((await errorOf(await app.fetch(app.signedPath("w_10", remote("/missing.png"))))).status).toBe(404);
    expect((await errorOf(await app.fetch(app.signedPath("w_10", remote("/gone.png"))))).status).toBe(410);
    expect((await errorOf(await app.fetch(app.signedPath("w_10", remote("/broken.png"))))).status).toBe(502);
  });
});

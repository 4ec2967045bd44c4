import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServedApp, type ServedApp } from "../support/browser";
import type { ContractFixture } from "../support/contract-fixture";
import { pixelBombPng } from "../support/hostile";
import { serveBytes, startOrigin, type Origin } from "../support/origin";
import { buildSignedUrl } from "../support/signed-url";
import { wire, type Wire } from "../support/wire";
import { makeGrain } from "../support/images";

/**
 * Every header and status of contract §4 as a client receives them from the built app: through Next's
 * router and our response writer, under `npm start` (scripts/server.mjs) and under `next start`
 * itself. Read with node:http to see the framing (Content-Length vs chunked) that fetch hides.
 */

/**
 * Framing every answer shares: an exact length (none on 304), never chunked, no framework Vary token
 * (the client hints only where the URL opted into them).
 */
function expectFraming(answer: Wire, method = "GET", hints: string[] = []): void {
  expect(answer.headers["transfer-encoding"]).toBeUndefined();
  expect(answer.headers["content-encoding"]).toBeUndefined();
  if (answer.status === 304) expect(answer.headers["content-length"]).toBeUndefined();
  else
    expect(Number(answer.headers["content-length"])).toBe(
      method === "HEAD" ? Number(answer.headers["content-length"]) : answer.body.length,
    );
  if (method === "HEAD" || answer.status === 304) expect(answer.body.length).toBe(0);
  const vary = (answer.headers.vary ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter(Boolean);
  for (const token of vary) expect(["Accept", "Referer", ...hints]).toContain(token);
}

function expectError(answer: Wire, status: number, code: string): void {
  expect({ status: answer.status, body: answer.body.toString().slice(0, 300) }).toEqual({
    status,
    body: expect.any(String),
  });
  expectFraming(answer);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(answer.headers["cache-control"]).toBe("no-store");
  expect(answer.headers["x-content-type-options"]).toBe("nosniff");
  const body = JSON.parse(answer.body.toString()) as { error: string; code: string; requestId: string };
  expect(body.code).toBe(code);
  expect(body.error.length).toBeGreaterThan(0);
  expect(body.requestId).toBe(answer.headers["x-request-id"]);
}

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">${'<rect x="8" y="8" width="48" height="48" fill="#2a6"/>'.repeat(40)}</svg>`;
const IMMUTABLE = "public, max-age=31536000, s-maxage=31536000, immutable";
const INTERIM = "public, max-age=60, s-maxage=60";
/** A large image out of WebP's reach at q_auto:best (images.ts). */
const GRAIN_WIDTH = 800;

/** Asks again until the final answer (immutable) is there: an interim one is followed, as a browser would. */
async function untilFinal(target: string, headers: Record<string, string>): Promise<Wire> {
  for (let tries = 0; ; tries++) {
    const answer = await wire(target, { headers });
    if (answer.headers["cache-control"] === IMMUTABLE || tries >= 300) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
/** The served app's source byte cap: remote sources are downloaded under it in the download thread. */
const SOURCE_CAP = 2 * 1024 * 1024;

for (const server of ["npm start", "next start"] as const) {
  describe(`contract §4 on the wire (${server})`, () => {
    let app: ServedApp;
    let origin: Origin;
    let elsewhere: Origin;
    let fixture: ContractFixture;
    let endlessClosed = false;
    const root = mkdtempSync(path.join(os.tmpdir(), "optstuff-wire-sources-"));

    beforeAll(async () => {
      const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#36c" } })
        .jpeg()
        .toBuffer();
      writeFileSync(path.join(root, "photo.jpg"), jpeg);
      // A camera's Display P3 shot: the make, a credit line and the profile, for meta_ and cs_.
      const camera = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#c33" } })
        .withIccProfile("p3")
        .withExif({ IFD0: { Make: "Canon", Copyright: "Jane Doe" } })
        .jpeg()
        .toBuffer();
      writeFileSync(path.join(root, "camera-p3.jpg"), camera);
      writeFileSync(path.join(root, "grain.png"), await makeGrain(GRAIN_WIDTH, 600));
      writeFileSync(path.join(root, "icon.svg"), SVG);
      writeFileSync(
        path.join(root, "active.svg"),
        SVG.replace("<rect", '<script>alert(1)</script><rect onload="alert(2)"'),
      );
      writeFileSync(path.join(root, "bomb.png"), pixelBombPng(20_000, 20_000));
      for (const heic of ["photo.heic", "declares-200-megapixels.heic"])
        writeFileSync(path.join(root, heic), readFileSync(path.join("tests/fixtures/heic", heic)));
      // A face (face-api's demo/sample3.jpg, from the installed package) at the far right of a grey canvas.
      const face = await sharp("node_modules/@vladmandic/face-api/demo/sample3.jpg")
        .extract({ left: 1400, top: 180, width: 420, height: 460 })
        .toBuffer();
      const grey = { create: { width: 1200, height: 400, channels: 3 as const, background: "#808080" } };
      const portrait = await sharp(face).resize({ height: 300 }).toBuffer();
      writeFileSync(
        path.join(root, "face.jpg"),
        await sharp(grey)
          .composite([{ input: portrait, left: 900, top: 50 }])
          .jpeg({ quality: 90 })
          .toBuffer(),
      );
      elsewhere = await startOrigin({ "/a.jpg": serveBytes(jpeg, "image/jpeg") });
      origin = await startOrigin({
        "/a.jpg": serveBytes(jpeg, "image/jpeg"),
        "/away": (_request, response) =>
          void response.writeHead(302, { Location: `http://${elsewhere.host}/a.jpg` }).end(),
        "/text": serveBytes(Buffer.from("not an image"), "text/plain"),
        "/broken": (_request, response) => void response.writeHead(500).end("upstream broke"),
        "/gone": (_request, response) => void response.writeHead(404).end("no such image"),
        "/slow": () => {}, // never answers: the download times out
        // Past the byte cap: declared up front, or a chunked body that never ends (written until the socket closes).
        "/declared-huge": (_request, response) =>
          void response
            .writeHead(200, { "Content-Type": "image/jpeg", "Content-Length": String(SOURCE_CAP * 4) })
            .end(),
        "/endless": (_request, response) => {
          response.writeHead(200, { "Content-Type": "image/jpeg" });
          const chunk = Buffer.alloc(64 * 1024, 0xff);
          const timer = setInterval(() => response.write(chunk), 2);
          response.on("close", () => {
            clearInterval(timer);
            endlessClosed = true;
          });
        },
      });
      app = await startServedApp(
        {
          OPTSTUFF_LOCAL_SOURCE_ROOT: root,
          OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "true",
          OPTSTUFF_FETCH_TIMEOUT_MS: "1500",
          OPTSTUFF_MAX_SOURCE_BYTES: String(SOURCE_CAP),
          OPTSTUFF_TRANSFORM_CONCURRENCY: "1",
          OPTSTUFF_TRANSFORM_QUEUE: "2",
        },
        (dataDir) => {
          const out = path.join(dataDir, "fixture.json");
          const result = spawnSync(
            process.execPath,
            ["node_modules/tsx/dist/cli.mjs", "tests/support/contract-fixture.ts", out, origin.host],
            {
              env: {
                ...process.env,
                OPTSTUFF_DATA_DIR: dataDir,
                DATABASE_URL: "",
                UPSTASH_REDIS_REST_URL: "",
                UPSTASH_REDIS_REST_TOKEN: "",
                OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "true",
              },
              encoding: "utf8",
            },
          );
          if (result.status !== 0) throw new Error(`fixture failed: ${result.stderr}`);
          fixture = JSON.parse(readFileSync(out, "utf8")) as ContractFixture;
        },
        server,
      );
    });

    afterAll(async () => {
      await app?.stop();
      await origin?.close();
      await elsewhere?.close();
      rmSync(root, { recursive: true, force: true });
    });

    const url = (operations: string, source: string, key = fixture.key, slug = fixture.slug) =>
      buildSignedUrl({ baseUrl: app.baseUrl, projectSlug: slug, ...key, operations, source });

    it("200: exact length on GET and HEAD, the contract's headers, and no Vary when the format was chosen", async () => {
      const target = url("w_100,f_webp", "local/photo.jpg");
      const get = await wire(target);
      expect(get.status).toBe(200);
      expectFraming(get);
      expect(get.headers["content-type"]).toBe("image/webp");
      expect(get.headers["cache-control"]).toBe(IMMUTABLE);
      expect(get.headers["cdn-cache-control"]).toBe("public, max-age=31536000");
      expect(get.headers.etag).toMatch(/^"/);
      expect(get.headers["x-content-type-options"]).toBe("nosniff");
      expect(get.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(get.headers["server-timing"]).toMatch(/auth;dur=[\d.]+.*total;dur=[\d.]+/);
      expect(get.headers.vary).toBeUndefined();
      expect((await sharp(get.body).metadata()).width).toBe(100);

      const head = await wire(target, { method: "HEAD" });
      expect(head.status).toBe(200);
      expectFraming(head, "HEAD");
      expect(head.headers["content-length"]).toBe(String(get.body.length));
      for (const name of ["content-type", "cache-control", "etag", "x-content-type-options"])
        expect(head.headers[name]).toBe(get.headers[name]);
    });

    it("f_auto: Vary is exactly Accept, on the 200 and on its 304, which carries no length", async () => {
      const target = url("w_80,f_auto", "local/photo.jpg");
      const get = await wire(target, { headers: { accept: "image/avif,image/webp,*/*" } });
      expect(get.status).toBe(200);
      expectFraming(get);
      expect(get.headers["content-type"]).toBe("image/avif");
      expect(get.headers.vary).toBe("Accept");
      const revalidated = await wire(target, {
        headers: { accept: "image/avif,image/webp,*/*", "if-none-match": get.headers.etag! },
      });
      expect(revalidated.status).toBe(304);
      expectFraming(revalidated);
      expect(revalidated.headers.vary).toBe("Accept");
      expect(revalidated.headers.etag).toBe(get.headers.etag);
    });

    it("q_auto under f_auto: the default quality first (interim), then the chosen quality and score in X-OptStuff-Quality, Vary exactly Accept, the same on HEAD", async () => {
      const target = url("w_120,q_auto:eco,f_auto", "local/photo.jpg");
      const accept = { accept: "image/webp,*/*" };
      const interim = await wire(target, { headers: accept });
      expect(interim.status).toBe(200);
      expectFraming(interim);
      expect(interim.headers["content-type"]).toBe("image/webp");
      expect(interim.headers["cache-control"]).toBe(INTERIM);
      expect(interim.headers.vary).toBe("Accept");
      expect(interim.headers["x-optstuff-quality"]).toBeUndefined();
      // The same bytes and ETag as the URL without q_auto: the format's default quality.
      const fixed = await wire(url("w_120,f_auto", "local/photo.jpg"), { headers: accept });
      expect(fixed.body.equals(interim.body)).toBe(true);
      expect(fixed.headers.etag).toBe(interim.headers.etag);
      // A revalidation of the interim answer while the search runs, or the searched answer once it is made.
      const revalidated = await wire(target, { headers: { ...accept, "if-none-match": interim.headers.etag! } });
      expect([200, 304]).toContain(revalidated.status);
      const get = await untilFinal(target, accept);
      expectFraming(get);
      expect(get.headers["cache-control"]).toBe(IMMUTABLE);
      expect(get.headers.vary).toBe("Accept");
      expect(get.headers.etag).not.toBe(interim.headers.etag);
      expect(get.headers["x-optstuff-quality"]).toMatch(/^\d{1,3}; score=\d+\.\d$/);
      const head = await wire(target, { method: "HEAD", headers: accept });
      expect(head.headers["x-optstuff-quality"]).toBe(get.headers["x-optstuff-quality"]);
      const current = await wire(target, { headers: { ...accept, "if-none-match": get.headers.etag! } });
      expect(current.status).toBe(304);
    });

    it("a level out of reach, on a large image: the knee, said so in the header, within 1.5× the default's bytes", async () => {
      const target = url("q_auto:best,f_webp", "local/grain.png");
      const get = await untilFinal(target, {});
      expectFraming(get);
      expect(get.headers["x-optstuff-quality"]).toMatch(/^\d{1,3}; score=\d+\.\d; unreached$/);
      expect((await sharp(get.body).metadata()).width).toBe(GRAIN_WIDTH);
      const fixed = await wire(url("f_webp", "local/grain.png"));
      expect(fixed.status).toBe(200);
      expect(get.body.length).toBeLessThanOrEqual(1.5 * fixed.body.length);
      const head = await wire(target, { method: "HEAD" });
      expect(head.headers["x-optstuff-quality"]).toBe(get.headers["x-optstuff-quality"]);
    });

    it("q_auto with Save-Data: the interim is the fixed URL's Save-Data answer, the searched one the next level down", async () => {
      const hinted = { "sec-ch-width": "640", "save-data": "on" };
      const hints = ["Sec-CH-Width", "Save-Data"];
      const target = url("w_auto,f_webp,q_auto", "local/grain.png");
      const interim = await wire(target, { headers: hinted });
      expect(interim.status).toBe(200);
      expectFraming(interim, "GET", hints);
      expect(interim.headers["cache-control"]).toBe(INTERIM);
      expect(interim.headers["x-optstuff-quality"]).toBeUndefined();
      const fixed = await wire(url("w_auto,f_webp", "local/grain.png"), { headers: hinted });
      expect(fixed.body.equals(interim.body)).toBe(true);
      const full = await wire(url("w_auto,f_webp", "local/grain.png"), { headers: { "sec-ch-width": "640" } });
      expect(interim.body.length).toBeLessThan(full.body.length);
      // Save-Data asks the search for eco instead of good: the same answer as the URL that names eco.
      const searched = await untilFinal(target, hinted);
      expectFraming(searched, "GET", hints);
      expect(searched.headers["x-optstuff-quality"]).toMatch(/score=/);
      expect((await sharp(searched.body).metadata()).width).toBe(640);
      const eco = await untilFinal(url("w_640,f_webp,q_auto:eco", "local/grain.png"), {});
      expect(searched.headers["x-optstuff-quality"]).toBe(eco.headers["x-optstuff-quality"]);
      expect(searched.body.equals(eco.body)).toBe(true);
    });

    it("q_auto on an SVG: its PNG at once, for good, with no interim step; without operations the SVG itself", async () => {
      const searched = await wire(url("q_auto", "local/icon.svg"), { headers: { accept: "image/webp,*/*" } });
      expect(searched.status).toBe(200);
      expectFraming(searched);
      expect(searched.headers["content-type"]).toBe("image/png");
      expect(searched.headers["cache-control"]).toBe(IMMUTABLE);
      expect((await sharp(searched.body).metadata()).format).toBe("png");
      const plain = await wire(url("_", "local/icon.svg"));
      expect(plain.headers["content-type"]).toBe("image/svg+xml");
      expect(plain.headers.etag).not.toBe(searched.headers.etag);
    });

    it("meta_ and cs_: what each output carries, each its own ETag, refusals as the JSON 400", async () => {
      const utf16 = (text: string) => Buffer.from(text, "utf16le").swap16();
      const answers = new Map<string, Wire>();
      for (const segment of [
        "w_100,f_webp",
        "w_100,f_webp,meta_keep",
        "w_100,f_webp,cs_keep",
        "w_100,f_webp,meta_strip",
      ]) {
        const answer = await wire(url(segment, "local/camera-p3.jpg"));
        expect(answer.status, segment).toBe(200);
        expectFraming(answer);
        expect(answer.headers["cache-control"]).toBe(IMMUTABLE);
        answers.set(segment, answer);
      }
      const metadataOf = (segment: string) => sharp(answers.get(segment)!.body).metadata();
      const exifText = async (segment: string) => (await metadataOf(segment)).exif?.toString("latin1") ?? "";
      // Default: the credit line only, converted to untagged sRGB.
      expect(await exifText("w_100,f_webp")).toContain("Jane Doe");
      expect(await exifText("w_100,f_webp")).not.toContain("Canon");
      expect((await metadataOf("w_100,f_webp")).icc).toBeUndefined();
      // meta_keep: the camera too, tagged sRGB; cs_keep: the source's P3 profile, the credit line.
      expect(await exifText("w_100,f_webp,meta_keep")).toContain("Canon");
      expect((await metadataOf("w_100,f_webp,meta_keep")).icc?.includes(utf16("sRGB"))).toBe(true);
      expect((await metadataOf("w_100,f_webp,cs_keep")).icc?.includes(utf16("P3"))).toBe(true);
      expect(await exifText("w_100,f_webp,cs_keep")).toContain("Jane Doe");
      const stripped = await metadataOf("w_100,f_webp,meta_strip");
      expect([stripped.exif, stripped.icc]).toEqual([undefined, undefined]);
      expect(new Set([...answers.values()].map((answer) => answer.headers.etag)).size).toBe(4);

      for (const segment of ["w_100,meta_keep,pixelate_8", "w_100,cs_keep,pixelate_8", "placeholder,cs_keep"]) {
        expectError(await wire(url(segment, "local/camera-p3.jpg")), 400, "INVALID_OPERATION");
      }
      expectError(await wire(url("w_100,cs_p3", "local/camera-p3.jpg")), 400, "INVALID_OPERATION");
    });

    it("AVIF without the wait: a cold AVIF answers the WebP under a 60 s lifetime and its own ETag, then the AVIF for good", async () => {
      const target = url("w_900,f_auto", "local/photo.jpg");
      const browser = { accept: "image/avif,image/webp,*/*" };
      const interim = await wire(target, { headers: browser });
      expect(interim.status).toBe(200);
      expectFraming(interim);
      expect(interim.headers["content-type"]).toBe("image/webp");
      expect(interim.headers["cache-control"]).toBe("public, max-age=60, s-maxage=60");
      expect(interim.headers["cdn-cache-control"]).toBe("public, max-age=60");
      expect(interim.headers.vary).toBe("Accept");
      // The source is 320 px wide and is not enlarged; the prediction reads only the URL.
      expect((await sharp(interim.body).metadata()).width).toBe(320);
      // The AVIF is made after the answer: the next requests get it, immutable, under another ETag.
      let final = interim;
      for (let tries = 0; tries < 100 && final.headers["content-type"] !== "image/avif"; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        final = await wire(target, { headers: browser });
      }
      expect(final.headers["content-type"]).toBe("image/avif");
      expectFraming(final);
      expect(final.headers["cache-control"]).toBe("public, max-age=31536000, s-maxage=31536000, immutable");
      expect(final.headers.etag).not.toBe(interim.headers.etag);
      const head = await wire(target, { method: "HEAD", headers: browser });
      expect(head.headers["content-type"]).toBe("image/avif");
      expect(head.headers.etag).toBe(final.headers.etag);
    });

    it("f_best: one of the formats Accept allows, Vary exactly Accept, an ETag per Accept class, its 304", async () => {
      const target = url("w_120,f_best", "local/photo.jpg");
      const browser = { accept: "image/avif,image/webp,*/*" };
      const interim = await wire(target, { headers: browser });
      expect(interim.status).toBe(200);
      expect(interim.headers["cache-control"]).toBe(INTERIM);
      expect(interim.headers["x-optstuff-quality"]).toBeUndefined();
      const get = await untilFinal(target, browser);
      expectFraming(get);
      expect(get.headers["cache-control"]).toBe(IMMUTABLE);
      expect(["image/avif", "image/webp"]).toContain(get.headers["content-type"]);
      expect(get.headers.vary).toBe("Accept");
      expect(get.headers["x-optstuff-quality"]).toMatch(/^\d{1,3}; score=\d+\.\d$/);
      const old = await untilFinal(target, { accept: "image/*" });
      expect(old.headers["content-type"]).toBe("image/jpeg");
      expect(old.headers.etag).not.toBe(get.headers.etag);
      const revalidated = await wire(target, { headers: { ...browser, "if-none-match": get.headers.etag! } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.vary).toBe("Accept");
      // info beside the operations: what they make, as JSON, varying as the image does.
      const info = await wire(url("w_120,f_best,info", "local/photo.jpg"), { headers: browser });
      expect(info.status).toBe(200);
      expectFraming(info);
      expect(info.headers["content-type"]).toMatch(/^application\/json/);
      expect(info.headers.vary).toBe("Accept");
      const output = (JSON.parse(info.body.toString()) as { output: { format: string; width: number; bytes: number } })
        .output;
      expect(output).toMatchObject({ format: get.headers["content-type"]!.slice(6), width: 120 });
      expect(output.bytes).toBe(get.body.length);
      const refused = await wire(url("w_120,f_best,q_70", "local/photo.jpg"));
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body.toString()).error).toMatch(/f_best chooses by a perceptual level/);
    });

    it("w_auto,dpr_auto: Vary and Accept-CH name the hints as sent, on the 200 and its 304, and the width follows Sec-CH-Width", async () => {
      const hints = ["Sec-CH-DPR", "Sec-CH-Width", "Save-Data"];
      const target = url("w_auto_40,dpr_auto,f_png", "local/photo.jpg");
      const get = await wire(target, { headers: { "sec-ch-width": "100", "sec-ch-dpr": "1" } });
      expect(get.status).toBe(200);
      expectFraming(get, "GET", hints);
      expect(get.headers.vary).toBe(hints.join(", "));
      expect(get.headers["accept-ch"]).toBe(hints.join(", "));
      expect((await sharp(get.body).metadata()).width).toBe(128);
      const revalidated = await wire(target, {
        headers: { "sec-ch-width": "120", "sec-ch-dpr": "1", "if-none-match": get.headers.etag! },
      });
      expect(revalidated.status).toBe(304);
      expectFraming(revalidated, "GET", hints);
      expect(revalidated.headers.vary).toBe(hints.join(", "));
      const fallback = await wire(target);
      expect((await sharp(fallback.body).metadata()).width).toBe(40);
    });

    it("SVG: served with its length, uncompressed even when gzip is accepted, under default-src 'none', active content removed", async () => {
      const get = await wire(url("_", "local/icon.svg"), { headers: { "accept-encoding": "gzip, deflate, br" } });
      expect(get.status).toBe(200);
      expectFraming(get);
      expect(get.headers["content-type"]).toMatch(/^image\/svg\+xml/);
      expect(get.headers["content-security-policy"]).toBe("default-src 'none'");
      expect(get.headers.vary).toBeUndefined();
      expect(get.body.toString()).toContain("<svg");
      const active = await wire(url("_", "local/active.svg"));
      expect(active.status).toBe(200);
      expectFraming(active);
      expect(active.headers["content-security-policy"]).toBe("default-src 'none'");
      expect(active.body.toString()).toContain("<rect");
      expect(active.body.toString()).not.toMatch(/script|onload/i);
    });

    it("Referer allowlist: Vary: Referer on the image, 403 without an allowed Referer", async () => {
      const target = url("w_40,f_png", "local/photo.jpg", fixture.refererKey, fixture.refererSlug);
      const allowed = await wire(target, { headers: { referer: "https://site.example/page" } });
      expect(allowed.status).toBe(200);
      expectFraming(allowed);
      expect(allowed.headers.vary).toBe("Referer");
      expectError(await wire(target), 403, "FORBIDDEN");
      expectError(await wire(target, { headers: { referer: "https://elsewhere.example/" } }), 403, "FORBIDDEN");
    });

    it("txt_: the caption drawn as typed, markup included; a malformed caption is the JSON 400 naming it", async () => {
      const caption = (text: string) => `txt_${Buffer.from(text).toString("base64url")}`;
      const drawn = await wire(url(`w_200,f_png,${caption("Hi")},txtstyle_40_ffffff_center_0_0`, "local/photo.jpg"));
      expect(drawn.status).toBe(200);
      expectFraming(drawn);
      expect(drawn.headers["cache-control"]).toBe(IMMUTABLE);
      const centre = await sharp(drawn.body).extract({ left: 60, top: 40, width: 80, height: 70 }).raw().toBuffer();
      const whiteAt = (pixels: Buffer) => {
        let count = 0;
        for (let at = 0; at < pixels.length; at += 3) if (pixels[at]! > 200 && pixels[at + 2]! > 200) count++;
        return count;
      };
      expect(whiteAt(centre)).toBeGreaterThan(100); // the glyphs, white on #36c
      expect(
        whiteAt(await sharp(drawn.body).extract({ left: 0, top: 0, width: 40, height: 40 }).raw().toBuffer()),
      ).toBe(0);

      // Markup asking for an enormous size is a line of small glyphs: the answer is the output's size.
      const attack = await wire(url(`w_200,f_png,${caption('<span size="900000">A</span>&amp;')}`, "local/photo.jpg"));
      expect(attack.status).toBe(200);
      expect(await sharp(attack.body).metadata()).toMatchObject({ width: 200, height: 150 });

      for (const token of ["txt_SGk=", "txt__w", `txt_${Buffer.from("x".repeat(201)).toString("base64url")}`]) {
        const refused = await wire(url(`w_200,${token}`, "local/photo.jpg"));
        expectError(refused, 400, "INVALID_OPERATION");
        expect(JSON.parse(refused.body.toString()).error).toMatch(/^Invalid operation "txt_.*expected txt_\{base64url/);
      }
      expectError(await wire(url("w_200,txtstyle_40", "local/photo.jpg")), 400, "INVALID_OPERATION");
    });

    it("HEIC: a JPEG without f_, WebP under f_auto, info says heic; one declaring 200 MP is the JSON 413", async () => {
      const jpeg = await wire(url("w_120", "local/photo.heic"));
      expect(jpeg.status).toBe(200);
      expectFraming(jpeg);
      expect(jpeg.headers["content-type"]).toBe("image/jpeg");
      expect(await sharp(jpeg.body).metadata()).toMatchObject({ format: "jpeg", width: 120, height: 120 });
      const webp = await wire(url("w_120,f_auto", "local/photo.heic"), { headers: { accept: "image/webp,*/*" } });
      expect(webp.headers["content-type"]).toBe("image/webp");
      const info = await wire(url("info", "local/photo.heic"));
      expect(JSON.parse(info.body.toString())).toMatchObject({ format: "heic", width: 480, height: 480 });
      expectError(await wire(url("w_120", "local/declares-200-megapixels.heic")), 413, "IMAGE_TOO_LARGE");
    });

    it("faces: g_face keeps the face a centre crop loses, info,g_face lists it, a bad fp_ is the JSON 400", async () => {
      const source = readFileSync(path.join(root, "face.jpg"));
      const right = await sharp(source)
        .extract({ left: 800, top: 0, width: 400, height: 400 })
        .resize(200, 200)
        .raw()
        .toBuffer();
      const meanDifference = async (body: Buffer) => {
        const pixels = await sharp(body).removeAlpha().raw().toBuffer();
        expect(pixels.length).toBe(right.length);
        return pixels.reduce((sum, value, i) => sum + Math.abs(value - right[i]!), 0) / pixels.length;
      };
      const kept = await wire(url("w_200,h_200,f_png,g_face", "local/face.jpg"));
      expect(kept.status).toBe(200);
      expectFraming(kept);
      expect(await meanDifference(kept.body)).toBeLessThan(3);
      const centre = await wire(url("w_200,h_200,f_png", "local/face.jpg"));
      expect(await meanDifference(centre.body)).toBeGreaterThan(10);

      const info = await wire(url("info,g_face", "local/face.jpg"));
      expect(info.status).toBe(200);
      const { faces } = JSON.parse(info.body.toString()) as { faces: Array<{ left: number; width: number }> };
      expect(faces).toHaveLength(1);
      expect(faces[0]!.left).toBeGreaterThanOrEqual(880);
      expect(faces[0]!.left + faces[0]!.width).toBeLessThanOrEqual(1200);

      // A face-less picture (grain): g_face keeps the centre, byte for byte the plain crop; info lists no face.
      const plain = await wire(url("w_200,h_100,f_png", "local/grain.png"));
      const faceless = await wire(url("w_200,h_100,f_png,g_face", "local/grain.png"));
      const north = await wire(url("w_200,h_100,f_png,g_north", "local/grain.png"));
      expect(north.body.equals(plain.body)).toBe(false); // the crop does cut: where it sits shows
      expect(faceless.status).toBe(200);
      expect(faceless.body.equals(plain.body)).toBe(true);
      expect(JSON.parse((await wire(url("info,g_auto", "local/photo.jpg"))).body.toString())).toMatchObject({
        faces: [],
      });

      expectError(await wire(url("w_200,h_200,fp_2_0", "local/face.jpg")), 400, "INVALID_OPERATION");
      expectError(await wire(url("w_200,h_200,trim,g_face", "local/face.jpg")), 400, "INVALID_OPERATION");
      expectError(await wire(url("w_200,h_200,g_faces", "local/face.jpg")), 400, "INVALID_OPERATION");
    });

    it("key policies: what a partner's key may sign, its longest exp and its referers, refused as the JSON 403", async () => {
      const now = Math.floor(Date.now() / 1000);
      const partner = (operations: string, exp?: number) =>
        buildSignedUrl({
          baseUrl: app.baseUrl,
          projectSlug: fixture.slug,
          ...fixture.partnerKey,
          operations,
          source: "local/photo.jpg",
          ...(exp === undefined ? {} : { exp }),
        });
      const fromPartner = { referer: "https://partner.example/shop" };
      const served = await wire(partner("w_60,f_png", now + 600), { headers: fromPartner });
      expect(served.status).toBe(200);
      expectFraming(served);
      expect(served.headers.vary).toBe("Referer");
      const refusals: Array<[string, number | undefined, Record<string, string>, number, string]> = [
        ["w_60,q_50", now + 600, fromPartner, 403, "KEY_POLICY_REFUSED"], // q is not among its operations
        ["w_60", undefined, fromPartner, 403, "KEY_POLICY_REFUSED"], // no exp
        ["w_60", now + 7200, fromPartner, 403, "KEY_POLICY_REFUSED"], // past its longest exp
        ["w_60", now + 600, {}, 403, "FORBIDDEN"], // no referer
        ["w_60", now + 600, { referer: "https://elsewhere.example/" }, 403, "FORBIDDEN"],
      ];
      for (const [operations, exp, headers, status, code] of refusals) {
        const answer = await wire(partner(operations, exp), { headers });
        expectError(answer, status, code);
      }
      // The owner's key on the same project signs anything.
      expect((await wire(url("w_60,q_50", "local/photo.jpg"))).status).toBe(200);
    });

    it.each([
      ["the project slug", (signed: string) => signed.replace("/api/v1/wire/", "/api/v1/wire%zz/")],
      ["the operations", (signed: string) => signed.replace("/w_30/", "/w_30%E0%A4%A/")],
      ["the source", (signed: string) => signed.replace("photo.jpg", "photo%C0%AF.jpg")],
    ])("400 JSON with a request id for malformed percent-encoding in %s, never Next's 500 page", async (_, spoil) => {
      const answer = await wire(spoil(url("w_30", "local/photo.jpg")));
      expectError(answer, 400, "BAD_REQUEST");
      expect(JSON.parse(answer.body.toString()).error).toBe("Malformed percent-encoding in the path");
      const head = await wire(spoil(url("w_30", "local/photo.jpg")), { method: "HEAD" });
      expect(head.status).toBe(400);
      expectFraming(head, "HEAD");
      expect(head.headers["content-length"]).toBe(answer.headers["content-length"]);
    });

    it("400 for an unknown operation, 401 for missing or unknown credentials, 403 for a bad signature or source", async () => {
      expectError(await wire(url("nope_1", "local/photo.jpg")), 400, "UNKNOWN_OPERATION");
      const signed = new URL(url("w_30", "local/photo.jpg"));
      const unsigned = new URL(signed);
      unsigned.searchParams.delete("sig");
      expectError(await wire(unsigned.href), 401, "MISSING_CREDENTIALS");
      const unknown = url("w_30", "local/photo.jpg", {
        publicKey: `pk_${"A".repeat(22)}`,
        secretKey: fixture.key.secretKey,
      });
      expectError(await wire(unknown), 401, "INVALID_KEY");
      const forged = new URL(signed);
      forged.searchParams.set("sig", "A".repeat(32));
      expectError(await wire(forged.href), 403, "FORBIDDEN");
      expectError(await wire(url("w_30", "https://not-allowed.example/a.jpg")), 403, "FORBIDDEN");
    });

    it("404, 413, 415, 502 and 504 from what the source did, each the JSON error", async () => {
      expectError(await wire(url("w_30", `http://${origin.host}/gone`)), 404, "SOURCE_NOT_FOUND");
      expectError(await wire(url("w_30", "local/bomb.png")), 413, "IMAGE_TOO_LARGE");
      const notImage = await wire(url("w_30", `http://${origin.host}/text`));
      expect([415, 422]).toContain(notImage.status);
      expectError(notImage, notImage.status, JSON.parse(notImage.body.toString()).code);
      expectError(await wire(url("w_30", `http://${origin.host}/broken`)), 502, "SOURCE_FAILED");
      expectError(await wire(url("w_30", `http://${origin.host}/slow`)), 504, "SOURCE_TIMEOUT");
    });

    it("fallback image for a failed source: 200, exact length, 60 s, no ETag, X-OptStuff-Fallback; the watermark on every output", async () => {
      for (const [source, code] of [
        ["local/missing.jpg", "SOURCE_NOT_FOUND"],
        [`http://${origin.host}/broken`, "SOURCE_FAILED"],
        [`http://${origin.host}/text`, "UNSUPPORTED_IMAGE"],
      ] as const) {
        const answer = await wire(url("w_100,f_png", source, fixture.imagesKey, fixture.imagesSlug));
        expect(answer.status, source).toBe(200);
        expectFraming(answer);
        expect(answer.headers["x-optstuff-fallback"]).toBe(code);
        expect(answer.headers["cache-control"]).toBe("public, max-age=60, s-maxage=60");
        expect(answer.headers["cdn-cache-control"]).toBe("public, max-age=60");
        expect(answer.headers.etag).toBeUndefined();
        expect(answer.headers["content-type"]).toBe("image/png");
        const { data, info } = await sharp(answer.body).raw().toBuffer({ resolveWithObject: true });
        expect([info.width, info.height]).toEqual([100, 50]);
        expect([...data.subarray(0, 3)]).toEqual([0, 255, 0]);
        // Watermarked too (the project puts it on every output): red in the bottom-right corner.
        const last = (info.width * info.height - 1) * info.channels;
        expect([...data.subarray(last, last + 3)]).toEqual([255, 0, 0]);
      }
      const image = await wire(url("w_100,f_png", "local/photo.jpg", fixture.imagesKey, fixture.imagesSlug));
      expect(image.status).toBe(200);
      expect(image.headers.etag).toMatch(/^"/);
      const { data, info } = await sharp(image.body).raw().toBuffer({ resolveWithObject: true });
      const corner = (info.width * info.height - 1) * info.channels;
      expect([...data.subarray(corner, corner + 3)]).toEqual([255, 0, 0]);
      expectError(
        await wire(url("w_100,wm_0.5", "local/photo.jpg", fixture.imagesKey, fixture.imagesSlug)),
        400,
        "INVALID_OPERATION",
      );
    });

    it("private bucket sources: an alias the project lacks is the generic 403, a malformed address a 400, before any fetch", async () => {
      expectError(await wire(url("w_100", "s3/media/photo.jpg")), 403, "FORBIDDEN");
      // (An empty segment, `a//b`, never reaches the route on the wire: Next redirects the path first.)
      for (const source of ["s3/Media/photo.jpg", "s3/media", "s3/media/a\u0001b.jpg"]) {
        expectError(await wire(url("w_100", source)), 400, "INVALID_SOURCE");
      }
    });

    it("413 for a source over the byte cap, declared or endless, cut at the cap (not the timeout) with the origin's connection closed", async () => {
      expectError(await wire(url("w_30", `http://${origin.host}/declared-huge`)), 413, "SOURCE_TOO_LARGE");
      // Cut at the cap: a download left to the 1500 ms budget would answer 504 SOURCE_TIMEOUT instead.
      expectError(await wire(url("w_30", `http://${origin.host}/endless`)), 413, "SOURCE_TOO_LARGE");
      await vi.waitFor(() => expect(endlessClosed).toBe(true), { timeout: 2_000 });
    });

    it("502 when an allowed origin redirects to a host the project did not allow, which is never connected to", async () => {
      expectError(await wire(url("w_30", `http://${origin.host}/away`)), 502, "SOURCE_REDIRECT_FORBIDDEN");
      expect(elsewhere.connections()).toBe(0);
    });

    it("429 with Retry-After and the X-RateLimit headers once a key's transforms are spent", async () => {
      const first = await wire(url("w_31", `http://${origin.host}/a.jpg`, fixture.limitedKey));
      expect(first.status).toBe(200);
      const limited = await wire(url("w_32", `http://${origin.host}/a.jpg`, fixture.limitedKey));
      expectError(limited, 429, "RATE_LIMITED");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      expect(limited.headers["x-ratelimit-limit"]).toBe("1");
      expect(limited.headers["x-ratelimit-remaining"]).toBe("0");
      expect(Number(limited.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000 - 1);
    });

    it("503 with Retry-After when the transform queue is full; every other request is served", async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          wire(url(`w_${1200 + i},h_900,fit_fill,enlarge,f_avif,q_90`, "local/photo.jpg")),
        ),
      );
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const answer of refused) {
        expectError(answer, 503, "OVERLOADED");
        expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
      }
      for (const answer of answers.filter((a) => a.status !== 503)) expect(answer.status).toBe(200);
    });
  });
}

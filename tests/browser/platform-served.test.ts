import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { startS3, type LocalS3 } from "../support/s3";
import { signedFor } from "../support/signed-url";
import { wire } from "../support/wire";

/**
 * What a platform like Vercel takes away, against the built app as `npm start` runs it: a response
 * cap (here 200 000 bytes, as OPTSTUFF_RESPONSE_MAX_BYTES sets it; Vercel's is 4.5 MB) and fonts (the
 * server is given a fontconfig file that lists none, as Vercel's functions have none).
 */
const CAP = 200_000;
const root = mkdtempSync(path.join(os.tmpdir(), "optstuff-platform-"));
const NO_FONTS = path.join(root, "no-fonts.conf");
let s3: LocalS3;
let app: ServedApp;
let vars: Record<string, string> = {};

beforeAll(async () => {
  copyFileSync("demo/photo.jpg", path.join(root, "photo.jpg"));
  writeFileSync(
    path.join(root, "letter.svg"),
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="60"><rect width="100" height="60" fill="#fff"/>' +
      '<text x="40" y="45" font-family="Helvetica, sans-serif" font-size="40" fill="#000">I</text></svg>',
  );
  writeFileSync(NO_FONTS, '<?xml version="1.0"?>\n<fontconfig></fontconfig>\n');
  s3 = await startS3();
  const bucket = await s3.bucket();
  app = await startServedApp(
    {
      OPTSTUFF_LOCAL_SOURCE_ROOT: root,
      OPTSTUFF_RESPONSE_MAX_BYTES: String(CAP),
      OPTSTUFF_RESULT_STORE_S3_BUCKET: bucket,
      OPTSTUFF_RESULT_STORE_S3_ENDPOINT: s3.endpoint,
      OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID: s3.accessKeyId,
      OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      FONTCONFIG_FILE: NO_FONTS,
    },
    (dataDir) => {
      vars = bootstrapProject(dataDir, ["--sources", "local"], { OPTSTUFF_LOCAL_SOURCE_ROOT: root });
    },
  );
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await s3?.stop();
});

const url = (operations: string, source: string) => signedFor(app.baseUrl, vars, operations, source);

describe("a response cap, served", () => {
  it("answers an output over it with a 307 to the bucket, framed, whose object is the whole image", async () => {
    for (const method of ["GET", "HEAD"]) {
      const answer = await wire(url("w_1200,f_png", "local/photo.jpg"), { method });
      expect(answer.status, method).toBe(307);
      expect(answer.body.length).toBe(0);
      expect(answer.headers["transfer-encoding"]).toBeUndefined();
      expect(answer.headers["content-length"]).toBe("0");
      expect(answer.headers["cache-control"]).toBe("public, max-age=3600, s-maxage=3600");
      expect(answer.headers["cdn-cache-control"]).toBe("public, max-age=3600");
      expect(answer.headers.vary).toBeUndefined();
      expect(answer.headers["content-type"]).toBeUndefined();
      const location = answer.headers.location!;
      expect(location.startsWith(`${s3.endpoint}/`)).toBe(true);
      const image = await fetch(location);
      expect(image.status).toBe(200);
      const body = Buffer.from(await image.arrayBuffer());
      expect(body.length).toBeGreaterThan(CAP);
      const meta = await sharp(body).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", 1200, 800]);
    }
  }, 60_000);

  it("answers an output within it directly, with its exact length", async () => {
    const answer = await wire(url("w_40,f_webp", "local/photo.jpg"));
    expect(answer.status).toBe(200);
    expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
    expect((await sharp(answer.body).metadata()).width).toBe(40);
  });
});

describe("SVG text on a server without fonts, served", () => {
  it("is drawn in the bundled fonts: a capital I is a thin stroke, not a missing-glyph box", async () => {
    const answer = await wire(url("f_png", "local/letter.svg"));
    expect(answer.status).toBe(200);
    const { data, info } = await sharp(answer.body).greyscale().raw().toBuffer({ resolveWithObject: true });
    const rows = new Set<number>();
    const columns = new Set<number>();
    for (let y = 0; y < info.height; y++)
      for (let x = 0; x < info.width; x++)
        if (data[y * info.width + x]! < 128) {
          rows.add(y);
          columns.add(x);
        }
    expect(rows.size).toBeGreaterThanOrEqual(26);
    expect(columns.size).toBeLessThanOrEqual(6);
  });
});

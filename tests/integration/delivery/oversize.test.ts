import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DeleteObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePrefixOf } from "@/server/delivery/result-keys";
import { createTestApp, DEMO_ROOT, NO_REDIS, type TestApp } from "../../support/app";
import { signUp } from "../../support/dashboard";
import { startS3, type LocalS3 } from "../../support/s3";

/**
 * A deployment whose functions cannot answer large bodies (Vercel: 4.5 MB) answers a larger output
 * with a redirect to its object in the S3 result bucket, signed, or refuses it in words when it has no
 * bucket: never the platform's opaque 500. Here the cap is 200 000 bytes; a 1200 px PNG of the demo
 * photo is well over it, a 40 px WebP well under.
 */
const CAP = 200_000;
const BIG = "w_1200,f_png";
let s3: LocalS3;
const apps: TestApp[] = [];
const root = mkdtempSync(path.join(os.tmpdir(), "optstuff-oversize-"));

beforeAll(async () => {
  copyFileSync(path.join(DEMO_ROOT, "photo.jpg"), path.join(root, "photo.jpg"));
  // Noise with alpha: as PNG (what f_auto answers a browser that takes neither WebP nor AVIF) about 1 MB.
  const noise = await sharp(randomBytes(600 * 400 * 4), { raw: { width: 600, height: 400, channels: 4 } })
    .png()
    .toBuffer();
  writeFileSync(path.join(root, "noise.png"), noise);
  s3 = await startS3();
}, 30_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  await s3?.stop();
});

async function appWithBucket(options: { storeBytes?: number; resultCacheBytes?: number; now?: () => Date } = {}) {
  const bucket = await s3.bucket();
  const app = await createTestApp({
    env: {
      ...NO_REDIS,
      OPTSTUFF_LOCAL_SOURCE_ROOT: root,
      OPTSTUFF_RESPONSE_MAX_BYTES: String(CAP),
      OPTSTUFF_RESULT_CACHE_BYTES: String(options.resultCacheBytes ?? 16 * 1024 * 1024),
      ...s3.storeEnv(bucket, options.storeBytes ?? 256 * 1024 * 1024),
    },
    seams: { now: options.now },
  });
  apps.push(app);
  return { app, bucket };
}

async function objectsIn(bucket: string): Promise<number> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return listed.KeyCount ?? 0;
}

describe("outputs over the response cap", () => {
  it("are a 307 to a signed URL of the bucket's object, which is the image itself", async () => {
    const { app, bucket } = await appWithBucket();
    const response = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    expect(response.status).toBe(307);
    expect(await response.arrayBuffer()).toHaveProperty("byteLength", 0);
    const location = new URL(response.headers.get("location")!);
    expect(location.origin).toBe(new URL(s3.endpoint).origin);
    expect(location.pathname).toMatch(new RegExp(`^/${bucket}/results/`));
    expect(location.searchParams.get("X-Amz-Expires")).toBe(String(6 * 3600));
    // Kept an hour (the link lives six), by browsers and CDNs alike; the image's own headers are the bucket's.
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600, s-maxage=3600");
    expect(response.headers.get("cdn-cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("content-type")).toBeNull();
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("cache-tag")).toMatch(/^optstuff-p-/);

    const followed = await fetch(location);
    expect(followed.status).toBe(200);
    expect(followed.headers.get("content-type")).toBe("image/png");
    // The object never changes under its key: kept as long as the link lives.
    expect(followed.headers.get("cache-control")).toBe("public, max-age=21600, immutable");
    const body = Buffer.from(await followed.arrayBuffer());
    expect(body.length).toBeGreaterThan(CAP);
    const meta = await sharp(body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 1200, 800]);

    await app.settled();
    const outcome = app.outcomes.at(-1)!;
    expect(outcome).toMatchObject({ status: "success", httpStatus: 307, sentBytes: 0, outputBytes: body.length });
  }, 60_000);

  it("name no project, source or variant in the link: the bucket, an opaque object, and the key id every presigned URL carries", async () => {
    const { app, bucket } = await appWithBucket();
    const response = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    expect(response.status).toBe(307);
    const location = new URL(response.headers.get("location")!);
    const object = decodeURIComponent(location.pathname.slice(`/${bucket}/results/`.length));
    // Project / source / variant, each segment a keyed name: not the project's UUID, not the source's
    // (unkeyed) digest, nothing a reader of the link can compute or confirm without the server's secret.
    const segments = object.split("/");
    expect(segments).toHaveLength(3);
    for (const segment of segments) expect(segment).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    const [, sourceDigest] = storePrefixOf(app.projectId, "local/photo.jpg").split("/");
    for (const clear of [app.projectId, app.projectId.slice(0, 8), sourceDigest!, "photo"])
      expect(location.href).not.toContain(clear);
    // What SigV4 cannot leave out (docs/security.md): the access key id, in X-Amz-Credential.
    expect(location.searchParams.get("X-Amz-Credential")).toMatch(
      new RegExp(`^${s3.accessKeyId}/\\d{8}/us-east-1/s3/aws4_request$`),
    );
    const followed = await fetch(location);
    expect(followed.status).toBe(200);
  }, 60_000);

  it("still delete a project's objects behind such links when one source or the whole project is purged", async () => {
    const { app, bucket } = await appWithBucket();
    // The first account owns the instance and adopts the test app's team "acme" (project "blog").
    const owner = await signUp(app.services, "oversize-owner");
    for (const source of ["local/photo.jpg", "local/noise.png"])
      expect((await app.fetch(app.signedPath("w_1200,f_png", source))).status).toBe(307);
    await app.services.delivery.results?.drain();
    expect(await objectsIn(bucket)).toBe(2);
    const one = await owner.caller.cache.purge({ teamSlug: "acme", projectSlug: "blog", source: "local/photo.jpg" });
    expect(one.deletedObjects).toBe(1);
    expect(await objectsIn(bucket)).toBe(1);
    const all = await owner.caller.cache.purge({ teamSlug: "acme", projectSlug: "blog" });
    expect(all.deletedObjects).toBe(1);
    expect(await objectsIn(bucket)).toBe(0);
  }, 60_000);

  it("upload each output once: the transform's write-back, not again at each request, to HEAD as to GET", async () => {
    const { app, bucket } = await appWithBucket();
    // The store counts what it wrote since its last listing: one object per upload.
    const uploads = () => app.services.delivery.results!.store.size().objects;
    const first = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    await app.services.delivery.results?.drain();
    expect(uploads()).toBe(1);
    const again = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    const head = await app.fetch(app.signedPath(BIG, "local/photo.jpg"), { method: "HEAD" });
    expect([first.status, again.status, head.status]).toEqual([307, 307, 307]);
    const objectOf = (response: Response) => new URL(response.headers.get("location")!).pathname;
    expect(objectOf(again)).toBe(objectOf(first));
    expect(objectOf(head)).toBe(objectOf(first));
    await app.services.delivery.results?.drain();
    expect(uploads()).toBe(1);
    expect(await objectsIn(bucket)).toBe(1);
  }, 60_000);

  it("upload once for concurrent requests of one large output", async () => {
    const { app } = await appWithBucket();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => app.fetch(app.signedPath("w_1100,f_png", "local/photo.jpg"))),
    );
    expect(answers.map((answer) => answer.status)).toEqual([307, 307, 307, 307]);
    await app.services.delivery.results?.drain();
    expect(app.services.delivery.results!.store.size().objects).toBe(1);
  }, 60_000);

  it("upload again what the bucket may have dropped since: a link is trusted for ten minutes", async () => {
    let nowMs = Date.now();
    const { app, bucket } = await appWithBucket({ now: () => new Date(nowMs) });
    const first = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    await app.services.delivery.results?.drain();
    // The daily pruning (or a lifecycle rule) deletes the object.
    const key = decodeURIComponent(new URL(first.headers.get("location")!).pathname.slice(`/${bucket}/`.length));
    await s3.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    nowMs += 11 * 60_000;
    const later = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    expect(later.status).toBe(307);
    const followed = await fetch(later.headers.get("location")!);
    expect(followed.status).toBe(200);
    expect((await sharp(Buffer.from(await followed.arrayBuffer())).metadata()).width).toBe(1200);
  }, 60_000);

  it("answer outputs within the cap directly, as before", async () => {
    const { app } = await appWithBucket();
    const response = await app.fetch(app.signedPath("w_40,f_webp", "local/photo.jpg"));
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get("content-length")).toBe(String(body.length));
    expect((await sharp(body).metadata()).width).toBe(40);
  }, 60_000);

  it("keep the signature's expiry: the redirect is not kept past it", async () => {
    const { app } = await appWithBucket();
    const exp = Math.floor(Date.now() / 1000) + 120;
    const response = await app.fetch(app.signedPath(BIG, "local/photo.jpg", { exp }));
    expect(response.status).toBe(307);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control")!)![1]);
    expect(maxAge).toBeGreaterThan(100);
    expect(maxAge).toBeLessThanOrEqual(120);
    // The link dies with the signature, not six hours later.
    const expires = Number(new URL(response.headers.get("location")!).searchParams.get("X-Amz-Expires"));
    expect(expires).toBeGreaterThan(100);
    expect(expires).toBeLessThanOrEqual(120);
  }, 60_000);

  it("keep Vary: Accept when the format was negotiated: each Accept has its own link", async () => {
    const { app } = await appWithBucket();
    const png = await app.fetch(app.signedPath("f_auto", "local/noise.png"), { headers: { accept: "image/png" } });
    expect(png.status).toBe(307);
    expect(png.headers.get("vary")).toBe("Accept");
    const followed = await fetch(png.headers.get("location")!);
    expect(followed.headers.get("content-type")).toBe("image/png");
    const webp = await app.fetch(app.signedPath("f_auto", "local/noise.png"), { headers: { accept: "image/webp" } });
    expect(webp.headers.get("vary")).toBe("Accept");
    // Another variant, so another object and link (or, within the cap, the image itself).
    if (webp.status === 307) expect(webp.headers.get("location")).not.toBe(png.headers.get("location"));
    else expect(webp.headers.get("content-type")).toBe("image/webp");
  }, 60_000);

  it("are refused with 413 OUTPUT_TOO_LARGE, in words, without a bucket to link to", async () => {
    const app = await createTestApp({
      env: { ...NO_REDIS, OPTSTUFF_LOCAL_SOURCE_ROOT: root, OPTSTUFF_RESPONSE_MAX_BYTES: String(CAP) },
    });
    apps.push(app);
    const response = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    expect(response.status).toBe(413);
    const body = (await response.json()) as { code: string; error: string };
    expect(body.code).toBe("OUTPUT_TOO_LARGE");
    expect(body.error).toMatch(/^The output is \d+ bytes; this deployment answers at most 200000\. Ask for a smaller/);
    // Within the cap, the same source still works.
    expect((await app.fetch(app.signedPath("w_40,f_webp", "local/photo.jpg"))).status).toBe(200);
  }, 60_000);

  it("are refused with 413 when the bucket keeps nothing that large", async () => {
    const { app, bucket } = await appWithBucket({ storeBytes: 2 * 1024 * 1024 });
    const response = await app.fetch(app.signedPath(BIG, "local/photo.jpg"));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe("OUTPUT_TOO_LARGE");
    await app.services.delivery.results?.drain();
    expect(await objectsIn(bucket)).toBe(0);
  }, 60_000);
});

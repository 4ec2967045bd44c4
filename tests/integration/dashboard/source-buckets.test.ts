import { readFileSync } from "node:fs";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "@/server/coordination/keys";
import { createTestApp, DEMO_ROOT, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { startS3, type LocalS3 } from "../../support/s3";
import { tokenOf } from "../../support/tenant-world";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * Private buckets as sources: configured through the dashboard's procedures, read by the real image
 * route from a real S3-compatible server (s3rver), the secret sealed everywhere it rests.
 */
let app: TestApp;
let s3: LocalS3;
let owner: TestUser;
let teamSlug: string;
let projectId: string;
let bucket: string;
let key: { publicKey: string; secretKey: string };
const projectSlug = "media";
// s3rver checks the access key id only, so any secret signs; this one must never show up in plaintext.
const SECRET = "bucket-secret-7c1f0e9a2b";
const photo = readFileSync(`${DEMO_ROOT}/photo.jpg`);

beforeAll(async () => {
  s3 = await startS3();
  bucket = await s3.bucket();
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: s3,
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
  for (const [name, body] of [
    ["photos/photo.jpg", photo],
    ["moved/photos/photo.jpg", photo],
    ["notes.txt", Buffer.from("not an image")],
  ] as const) {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: name, Body: body }));
  }
  client.destroy();
  app = await createTestApp();
  owner = await signUp(app.services, "buckets");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Buckets",
      slug: `buckets-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  projectId = (
    await owner.caller.project.create({ teamSlug, name: "Media", slug: projectSlug, allowedSourceHosts: ["local"] })
  ).id;
  key = await owner.caller.apiKey.create({ teamSlug, projectSlug, name: "buckets", expiresAt: null });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await s3?.stop();
});

const scope = () => ({ teamSlug, projectSlug });
const settings = () => ({
  ...scope(),
  alias: "media",
  endpoint: s3.endpoint,
  region: "us-east-1",
  bucket,
  prefix: "",
  forcePathStyle: true,
  accessKeyId: s3.accessKeyId,
});
const get = (operations: string, source: string, headers: Record<string, string> = {}) => {
  const url = buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations, source });
  return app.fetch(url.slice(url.indexOf("/api/v1/")), { headers });
};
const body = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe("private buckets as sources", () => {
  it("serves s3/{alias}/{key} from the bucket, byte-equal to the same image from elsewhere", async () => {
    expect((await get("w_100,f_png", "s3/media/photos/photo.jpg")).status).toBe(403);
    await owner.caller.sourceBucket.save({ ...settings(), secretAccessKey: SECRET });
    const fromBucket = await get("w_100,f_png", "s3/media/photos/photo.jpg");
    expect(fromBucket.status).toBe(200);
    const local = await body(await get("w_100,f_png", "local/photo.jpg"));
    expect((await body(fromBucket)).equals(local)).toBe(true);
    expect(await sharp(local).metadata()).toMatchObject({ format: "png", width: 100 });
    await app.settled();
    expect(app.outcomes.at(-2)).toMatchObject({
      sourceUrl: "s3/media/photos/photo.jpg",
      status: "success",
      sourceBytes: photo.length,
    });
  });

  it("answers what the bucket does: 404 for a missing object, 415 for one that is not an image, 403 for an unknown alias, 400 for a bad address", async () => {
    expect((await get("w_100", "s3/media/photos/missing.jpg")).status).toBe(404);
    expect((await get("w_100", "s3/media/notes.txt")).status).toBe(415);
    expect((await get("w_100", "s3/other/photos/photo.jpg")).status).toBe(403);
    for (const source of ["s3/Media/photos/photo.jpg", "s3/media", "s3/media/a//b.jpg"])
      expect((await get("w_100", source)).status, source).toBe(400);
  });

  it("re-pointing the alias changes its URLs' ETags; the secret is kept when left out", async () => {
    const before = await get("w_80,f_png", "s3/media/photos/photo.jpg");
    const etag = before.headers.get("etag")!;
    expect((await get("w_80,f_png", "s3/media/photos/photo.jpg", { "If-None-Match": etag })).status).toBe(304);
    await owner.caller.sourceBucket.save({ ...settings(), prefix: "moved/" });
    const after = await get("w_80,f_png", "s3/media/photos/photo.jpg", { "If-None-Match": etag });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect((await owner.caller.sourceBucket.list(scope())).map((b) => [b.alias, b.prefix, b.accessKeyIdHint])).toEqual([
      ["media", "moved/", `…${s3.accessKeyId.slice(-4)}`],
    ]);
    await owner.caller.sourceBucket.save({ ...settings() });
  });

  it("keeps the secret sealed: not in the listing, the cached config, the request log or an error", async () => {
    // With Redis (CI's PostgreSQL + Redis run) the entry the project's config is cached under, written
    // back by the next request once the last save's invalidation marker is gone; in process, the same
    // config as the Redis tier would encode it.
    const { kv, redis } = app.services.coordination;
    await kv.del([redisKeys.projectConfig(projectId)]);
    await get("w_60", "s3/media/photos/photo.jpg");
    await get("w_60", "s3/media/photos/missing.jpg");
    await app.settled();
    const cached = redis
      ? await redis.get(redisKeys.projectConfig(projectId))
      : JSON.stringify(await app.services.config.getProject(projectId));
    expect(cached).toContain('"buckets"');
    expect(cached).not.toContain(SECRET);
    expect(JSON.stringify(await owner.caller.sourceBucket.list(scope()))).not.toContain(SECRET);
    expect(JSON.stringify(app.outcomes)).not.toContain(SECRET);
    const missing = await get("w_61", "s3/media/photos/missing.jpg");
    expect(await missing.text()).not.toContain(SECRET);
  });

  it("refuses unsafe or incomplete settings naming the problem, and is for admins", async () => {
    const save = (changes: object) =>
      owner.caller.sourceBucket.save({ ...settings(), alias: "new", secretAccessKey: SECRET, ...changes });
    await expect(save({ endpoint: "http://169.254.169.254" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("Endpoint"),
    });
    await expect(save({ endpoint: "http://user:pass@s3.example.com" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(save({ endpoint: "ftp://s3.example.com" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(save({ secretAccessKey: undefined })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("secret"),
    });
    await expect(save({ bucket: "Bad_Bucket" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(save({ alias: "Bad Alias" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(save({ prefix: "/abs" })).rejects.toMatchObject({ code: "BAD_REQUEST" });

    const member = await signUp(app.services, "buckets-member");
    const invitation = await owner.caller.team.invite({ teamSlug, email: member.email, role: "member" });
    await member.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
    expect((await member.caller.sourceBucket.list(scope())).map((b) => b.alias)).toEqual(["media"]);
    await expect(member.caller.sourceBucket.save({ ...settings(), secretAccessKey: "x" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(member.caller.sourceBucket.delete({ ...scope(), alias: "media" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });

    await owner.caller.sourceBucket.delete({ ...scope(), alias: "media" });
    expect((await get("w_100", "s3/media/photos/photo.jpg")).status).toBe(403);
    await expect(owner.caller.sourceBucket.delete({ ...scope(), alias: "media" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});

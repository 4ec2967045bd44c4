import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RATE_LIMIT_PER_DAY } from "@/server/config-cache/key-limits";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { signUp, type TestUser } from "../../support/dashboard";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * Key and project writes through the procedures, observed through the real image route. The config
 * cache lives for a minute here, so a write that forgot to invalidate would keep being served.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
const projectSlug = "shop";

beforeAll(async () => {
  // Loopback stays refused here, as in production: the images come from the local root.
  app = await createTestApp({
    env: { OPTSTUFF_CONFIG_CACHE_TTL_MS: "60000", OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "0" },
  });
  owner = await signUp(app.services, "keys");
  teamSlug = (
    await owner.caller.account.completeOnboarding({ name: "Keys", slug: `keys-${owner.id.slice(0, 8).toLowerCase()}` })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Shop", slug: projectSlug, allowedSourceHosts: ["local"] });
}, 30_000);
afterAll(() => app.close());

function imagePath(
  key: { publicKey: string; secretKey: string },
  slug = projectSlug,
  operations = "w_40,f_png",
): string {
  const url = buildSignedUrl({ baseUrl: "http://x", projectSlug: slug, ...key, operations, source: "local/photo.jpg" });
  return url.slice("http://x".length);
}

const newKey = (name = "k", extra: Record<string, unknown> = {}) =>
  owner.caller.apiKey.create({ teamSlug, projectSlug, name, expiresAt: null, ...extra });

describe("API keys", () => {
  it("creates a key whose secret and .env block are returned once, and serves images with it", async () => {
    const key = await newKey("web");
    expect(key.secretKey).toMatch(/^sk_/);
    expect(key.env).toContain(`OPTSTUFF_SECRET_KEY=${key.secretKey}`);
    expect(key.env).toContain(`OPTSTUFF_PROJECT_SLUG=${projectSlug}`);
    const listed = (await owner.caller.apiKey.list({ teamSlug, projectSlug })).find((k) => k.id === key.id)!;
    expect(JSON.stringify(listed)).not.toContain(key.secretKey);
    expect(listed.status).toBe("active");
    expect((await app.fetch(imagePath(key))).status).toBe(200);
  });

  it("refuses an expiry in the past", async () => {
    await expect(newKey("old", { expiresAt: new Date(Date.now() - 1000) })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Expiry must be in the future",
    });
  });

  it("bounds the per-key limits and applies a change to the next request", async () => {
    await clearOfWindowEdge();
    const key = await newKey("limited");
    await expect(
      owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: key.id, rateLimitPerMinute: 0 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: key.id, rateLimitPerMinute: 10, rateLimitPerDay: 5 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // The limits count transforms: each request below asks for a variant nothing has produced yet.
    expect((await app.fetch(imagePath(key, projectSlug, "w_71,f_png"))).status).toBe(200);
    const updated = await owner.caller.apiKey.update({
      teamSlug,
      projectSlug,
      keyId: key.id,
      name: "limited",
      rateLimitPerMinute: 1,
    });
    expect(updated.rateLimitPerMinute).toBe(1);
    // The list says what the key is held to: its own per-minute limit, the default per day.
    const listed = (await owner.caller.apiKey.list({ teamSlug, projectSlug })).find((k) => k.id === key.id);
    expect(listed?.limits).toEqual({ perMinute: 1, perDay: DEFAULT_RATE_LIMIT_PER_DAY });
    const second = await app.fetch(imagePath(key, projectSlug, "w_72,f_png"));
    expect(second.status).toBe(429);
  });

  it("revokes at once: the next image request is refused although the key was cached", async () => {
    const key = await newKey("revoked");
    expect((await app.fetch(imagePath(key))).status).toBe(200);
    await owner.caller.apiKey.revoke({ teamSlug, projectSlug, keyId: key.id });
    const response = await app.fetch(imagePath(key));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe("KEY_REVOKED");
  });

  it("rotates with a grace period during which both pairs verify, and never revives a revoked key", async () => {
    const old = await newKey("rotating");
    expect((await app.fetch(imagePath(old))).status).toBe(200);
    const rotated = await owner.caller.apiKey.rotate({ teamSlug, projectSlug, keyId: old.id, graceSeconds: 3600 });
    expect(rotated.publicKey).not.toBe(old.publicKey);
    expect(rotated.oldKeyExpiresAt.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    expect((await app.fetch(imagePath(old))).status).toBe(200);
    expect((await app.fetch(imagePath(rotated))).status).toBe(200);
    const statuses = Object.fromEntries(
      (await owner.caller.apiKey.list({ teamSlug, projectSlug })).map((k) => [k.id, k.status]),
    );
    expect([statuses[old.id], statuses[rotated.id]]).toEqual(["rotating", "active"]);
    await expect(
      owner.caller.apiKey.rotate({ teamSlug, projectSlug, keyId: old.id, graceSeconds: 60 }),
    ).rejects.toMatchObject({ code: "CONFLICT" });

    await owner.caller.apiKey.revoke({ teamSlug, projectSlug, keyId: rotated.id });
    await expect(
      owner.caller.apiKey.rotate({ teamSlug, projectSlug, keyId: rotated.id, graceSeconds: 60 }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(
      owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: rotated.id, expiresAt: null }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("ends the old pair at once with a zero grace period", async () => {
    const old = await newKey("instant");
    expect((await app.fetch(imagePath(old))).status).toBe(200);
    const rotated = await owner.caller.apiKey.rotate({ teamSlug, projectSlug, keyId: old.id, graceSeconds: 0 });
    expect((await app.fetch(imagePath(old))).status).toBe(401);
    expect((await app.fetch(imagePath(rotated))).status).toBe(200);
  });

  it("signs a tester URL on the server that the image route serves", async () => {
    const key = await newKey("tester");
    const { url } = await owner.caller.developer.signUrl({
      teamSlug,
      projectSlug,
      keyId: key.id,
      operations: "w_32,f_webp",
      source: "local/photo.jpg",
      expiresInSeconds: 600,
    });
    const response = await app.fetch(url.slice(url.indexOf("/api/v1/")));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/webp");
    await expect(
      owner.caller.developer.signUrl({
        teamSlug,
        projectSlug,
        keyId: key.id,
        operations: "bogus_1",
        source: "local/photo.jpg",
        expiresInSeconds: null,
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("projects", () => {
  it("normalises host lists and refuses unsafe entries with a message naming them", async () => {
    const updated = await owner.caller.project.update({
      teamSlug,
      projectSlug,
      allowedRefererHosts: ["HTTPS://Example.COM:8443", "*.shop.example"],
    });
    expect(updated.allowedRefererHosts).toEqual(["example.com", "*.shop.example"]);
    for (const bad of ["10.0.0.1", "localhost", "example.com/path", "user@example.com", "169.254.169.254"]) {
      await expect(
        owner.caller.project.update({ teamSlug, projectSlug, allowedSourceHosts: [bad] }),
        bad,
      ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining(bad) });
      await expect(
        owner.caller.project.update({ teamSlug, projectSlug, allowedRefererHosts: [bad] }),
        bad,
      ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
    expect((await owner.caller.project.get({ teamSlug, projectSlug })).project.allowedSourceHosts).toEqual(["local"]);
    await owner.caller.project.update({ teamSlug, projectSlug, allowedRefererHosts: [] });
  });

  it("applies a referer allowlist to the next image request", async () => {
    const key = await newKey("referer");
    expect((await app.fetch(imagePath(key))).status).toBe(200);
    await owner.caller.project.update({ teamSlug, projectSlug, allowedRefererHosts: ["shop.example"] });
    expect((await app.fetch(imagePath(key))).status).toBe(403);
    expect((await app.fetch(imagePath(key), { headers: { referer: "https://shop.example/p" } })).status).toBe(200);
    await owner.caller.project.update({ teamSlug, projectSlug, allowedRefererHosts: [] });
  });

  it("refuses a duplicate slug within the team", async () => {
    await expect(owner.caller.project.create({ teamSlug, name: "Again", slug: projectSlug })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("renames the slug and the image route follows at once", async () => {
    await owner.caller.project.create({ teamSlug, name: "Blog", slug: "blog" });
    await owner.caller.project.update({ teamSlug, projectSlug: "blog", allowedSourceHosts: ["local"] });
    const key = await owner.caller.apiKey.create({ teamSlug, projectSlug: "blog", name: "b", expiresAt: null });
    expect((await app.fetch(imagePath(key, "blog"))).status).toBe(200);
    await owner.caller.project.update({ teamSlug, projectSlug: "blog", slug: "journal" });
    expect((await app.fetch(imagePath(key, "blog"))).status).toBe(401);
    expect((await app.fetch(imagePath(key, "journal"))).status).toBe(200);
  });

  it("deletes a project with its keys, and its cached keys stop working at once", async () => {
    await owner.caller.project.create({ teamSlug, name: "Temp", slug: "temp", allowedSourceHosts: ["local"] });
    const key = await owner.caller.apiKey.create({ teamSlug, projectSlug: "temp", name: "t", expiresAt: null });
    expect((await app.fetch(imagePath(key, "temp"))).status).toBe(200);
    await expect(
      owner.caller.project.delete({ teamSlug, projectSlug: "temp", confirmSlug: "wrong" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await owner.caller.project.delete({ teamSlug, projectSlug: "temp", confirmSlug: "temp" });
    expect((await app.fetch(imagePath(key, "temp"))).status).toBe(401);
    await expect(owner.caller.project.get({ teamSlug, projectSlug: "temp" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("finds projects by name or slug", async () => {
    const found = await owner.caller.project.list({ teamSlug, search: "SHO" });
    expect(found.map((p) => p.slug)).toEqual(["shop"]);
    expect(await owner.caller.project.list({ teamSlug, search: "100%_" })).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { setupAudit } from "../../support/audit";

/**
 * What a response tells everyone who sees it (a CDN's logs, a browser, a proxy on the way): the
 * Cache-Tag values and the ETag are keyed digests, never the project's id or its purge count, yet a
 * purge still names the tag the CDN must drop and still changes the ETag.
 */
let app: TestApp;
let owner: TestUser;
let other: { projectId: string; key: { publicKey: string; secretKey: string } };

beforeAll(async () => {
  app = await createTestApp({ env: NO_REDIS });
  const made = await bootstrap(
    { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
    { teamSlug: "elsewhere", projectSlug: "gallery", keyName: "k", sourceHosts: ["local"] },
  );
  other = { projectId: made.project.id, key: made.key };
  // The first account owns the instance and adopts team "acme" (project "blog"), which purges below.
  owner = await signUp(app.services, "owner");
}, 60_000);
afterAll(() => app.close());

const PUBLIC_TAG = /^optstuff-[ps]-[A-Za-z0-9_-]{22}$/;
const OPAQUE_ETAG = /^"[A-Za-z0-9_-]{22}"$/;

function identifiers(response: Response) {
  return {
    etag: response.headers.get("etag")!,
    tags: (response.headers.get("cache-tag") ?? "").split(","),
    spellings: [response.headers.get("surrogate-key"), response.headers.get("vercel-cache-tag")].join(" "),
  };
}

describe("public identifiers in image responses", () => {
  it("name the project and source in Cache-Tag without the project's id, and keep the ETag opaque through purges", async () => {
    const path = app.signedPath("w_64", "local/photo.jpg");
    const first = await app.fetch(path);
    expect(first.status).toBe(200);
    const before = identifiers(first);
    expect(before.tags).toHaveLength(2);
    for (const tag of before.tags) expect(tag).toMatch(PUBLIC_TAG);
    expect(before.etag).toMatch(OPAQUE_ETAG);
    for (const value of [before.etag, ...before.tags, before.spellings]) {
      expect(value).not.toContain(app.projectId);
      expect(value).not.toContain(app.projectId.slice(0, 8));
      expect(value).not.toContain("photo");
    }
    // Stable: the same request names the same tags and ETag, and the ETag answers 304.
    expect(identifiers(await app.fetch(path))).toEqual(before);
    expect((await app.fetch(path, { headers: { "If-None-Match": before.etag } })).status).toBe(304);

    let previous = before.etag;
    for (let purge = 1; purge <= 3; purge++) {
      const purged = await owner.caller.cache.purge({ teamSlug: "acme", projectSlug: "blog" });
      expect(purged.cdnTag).toBe(before.tags[0]);
      const conditional = await app.fetch(path, { headers: { "If-None-Match": previous } });
      expect(conditional.status).toBe(200);
      const after = identifiers(conditional);
      expect(after.tags).toEqual(before.tags);
      expect(after.etag).toMatch(OPAQUE_ETAG);
      expect(after.etag).not.toBe(previous);
      expect(after.etag).not.toContain(`.${purged.generation}`);
      expect((await app.fetch(path, { headers: { "If-None-Match": after.etag } })).status).toBe(304);
      previous = after.etag;
    }

    const sourcePurge = await owner.caller.cache.purge({
      teamSlug: "acme",
      projectSlug: "blog",
      source: "local/photo.jpg",
    });
    expect(sourcePurge.cdnTag).toBe(before.tags[1]);
    expect(sourcePurge.cdnTag).toMatch(PUBLIC_TAG);
  });

  it("differ between projects for the same variant", async () => {
    const mine = identifiers(await app.fetch(app.signedPath("w_48", "local/photo.jpg")));
    const theirs = await app.fetch(app.signedPath("w_48", "local/photo.jpg", { key: other.key, slug: "gallery" }));
    expect(theirs.status).toBe(200);
    const named = identifiers(theirs);
    expect(named.etag).toMatch(OPAQUE_ETAG);
    expect(named.etag).not.toBe(mine.etag);
    expect(named.tags.filter((tag) => mine.tags.includes(tag))).toEqual([]);
    expect([named.etag, ...named.tags].join(" ")).not.toContain(other.projectId);
  });
});

import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfigStore } from "@/server/config-cache";
import { apiKeys, projects } from "@/server/db/schema";
import { createLogger } from "@/server/log";
import { createSecretBox, generateKeyPair } from "@/server/signing";
import { createTestApp, type TestApp } from "../../support/app";
import { makeJpeg, makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

let app: TestApp;
let origin: Origin;
const logLines: string[] = [];
const cleanSvg = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#08f"/></svg>',
);

beforeAll(async () => {
  origin = await startOrigin({
    "/a.png": serveBytes(await makePng(40, 40), "image/png"),
    "/clean.svg": serveBytes(cleanSvg, "image/svg+xml"),
    "/big.jpg": serveBytes(await makeJpeg(3000, 2000), "image/jpeg"),
  });
  app = await createTestApp({
    sourceHosts: [origin.host],
    seams: { logger: createLogger("debug", (line) => logLines.push(line)) },
  });
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const remote = (path: string) => `http://${origin.host}${path}`;

describe("route invariants", () => {
  it("checks the public key's shape before any lookup", async () => {
    const delivery = app.services.delivery.route;
    const real = delivery.config;
    let lookups = 0;
    const counting: ConfigStore = {
      getApiKey: (pk) => (lookups++, real.getApiKey(pk)),
      getProject: (id) => (lookups++, real.getProject(id)),
    };
    delivery.config = counting;
    try {
      const path = app.signedPath("w_10", remote("/a.png"));
      for (const bad of ["pk_short", "pk_AAAAAAAAAAAAAAAAAAAAA!", "sk_AAAAAAAAAAAAAAAAAAAAAA", "x".repeat(5000)]) {
        const response = await app.fetch(path.replace(/key=[^&]+/, `key=${encodeURIComponent(bad)}`));
        expect(response.status).toBe(401);
      }
      expect(lookups).toBe(0);
    } finally {
      delivery.config = real;
    }
  });

  it("authorizes before answering 304: a matching ETag does not bypass signature, key or source checks", async () => {
    const path = app.signedPath("w_20", remote("/a.png"));
    const etag = (await app.fetch(path)).headers.get("etag")!;
    const forged = await app.fetch(path.replace(/sig=[^&]+/, `sig=${"B".repeat(32)}`), {
      headers: { "If-None-Match": etag },
    });
    expect(forged.status).toBe(403);
    await app.services.database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, app.key.id));
    await app.services.invalidate.apiKeys([app.key.publicKey]);
    try {
      expect((await app.fetch(path, { headers: { "If-None-Match": etag } })).status).toBe(401);
    } finally {
      await app.services.database.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, app.key.id));
      await app.services.invalidate.apiKeys([app.key.publicKey]);
    }
  });

  it("enforces the referer allowlist and says Vary: Referer", async () => {
    const db = app.services.database.db;
    await db
      .update(projects)
      .set({ allowedRefererHosts: ["*.example.com"] })
      .where(eq(projects.id, app.projectId));
    await app.services.invalidate.project(app.projectId);
    try {
      const path = app.signedPath("w_16", remote("/a.png"));
      expect((await app.fetch(path)).status).toBe(403);
      expect((await app.fetch(path, { headers: { Referer: "https://evil.test/page" } })).status).toBe(403);
      expect((await app.fetch(path, { headers: { Referer: "https://example.com/page" } })).status).toBe(403);
      const allowed = await app.fetch(path, { headers: { Referer: "https://www.example.com/page" } });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get("vary")).toContain("Referer");
    } finally {
      await db.update(projects).set({ allowedRefererHosts: [] }).where(eq(projects.id, app.projectId));
      await app.services.invalidate.project(app.projectId);
    }
  });

  it("passes a clean SVG through with its type, nosniff and a CSP that forbids everything", async () => {
    const response = await app.fetch(app.signedPath("_", remote("/clean.svg")));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).toContain("<rect");
  });

  it("sends nosniff and no-store on errors", async () => {
    const response = await app.fetch(app.signedPath("w_0", remote("/a.png")));
    expect(response.status).toBe(400);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 503 with Retry-After when the transform queue is full, then serves again", async () => {
    const busy = await createTestApp({
      sourceHosts: [origin.host],
      env: { OPTSTUFF_TRANSFORM_CONCURRENCY: "1", OPTSTUFF_TRANSFORM_QUEUE: "0", OPTSTUFF_RESULT_CACHE_BYTES: "0" },
    });
    try {
      const responses = await Promise.all(
        [1, 2, 3, 4].map((n) => busy.fetch(busy.signedPath(`w_${300 + n},blur_5`, remote("/big.jpg")))),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toContain(200);
      expect(statuses).toContain(503);
      const refused = responses.find((r) => r.status === 503)!;
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as { code: string }).code).toBe("OVERLOADED");
      const after = await busy.fetch(busy.signedPath("w_100", remote("/big.jpg")));
      expect((await sharp(Buffer.from(await after.arrayBuffer())).metadata()).width).toBe(100);
    } finally {
      await busy.close();
    }
  });

  it("answers a key sealed under an unknown master with a generic 500 and logs why", async () => {
    const pair = generateKeyPair();
    const foreign = createSecretBox("some-other-master").seal(pair.secretKey, pair.publicKey);
    await app.services.database.db
      .insert(apiKeys)
      .values({ projectId: app.projectId, name: "foreign", publicKey: pair.publicKey, encryptedSecret: foreign });
    const response = await app.fetch(app.signedPath("w_10", remote("/a.png"), { key: pair }));
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: "Internal server error", code: "INTERNAL" });
    expect(logLines.some((l) => l.includes("could not be opened"))).toBe(true);
  });

  it("never writes a secret, a sealed secret, the master or a signature to the log", async () => {
    await app.fetch(app.signedPath("w_12", remote("/a.png")));
    await app.settled(); // after-response outcome lines
    const [sealed] = await app.services.database.db
      .select({ s: apiKeys.encryptedSecret })
      .from(apiKeys)
      .where(eq(apiKeys.id, app.key.id));
    const signature = new URL(app.signedPath("w_12", remote("/a.png")), "http://x").searchParams.get("sig")!;
    const everything = logLines.join("\n");
    expect(logLines.length).toBeGreaterThan(5);
    for (const secret of [app.key.secretKey, sealed!.s, "test-master", signature])
      expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/sk_[A-Za-z0-9_-]{43}/);
  });
});

import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestApp, type TestApp } from "../../support/app";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { setupAudit } from "../../support/audit";

// Contract §5: every redirect hop is checked against the project's allowed sources, not only against
// the address rules. An open redirect on an allowed CDN must not make the proxy fetch anything.
let app: TestApp;
let allowed: Origin;
let elsewhere: Origin;
let png: Buffer;

const redirectTo = (target: () => string) => (_request: http.IncomingMessage, response: http.ServerResponse) =>
  void response.writeHead(302, { Location: target() }).end();

beforeAll(async () => {
  png = await makePng(48, 32);
  elsewhere = await startOrigin({ "/a.png": serveBytes(png, "image/png") });
  allowed = await startOrigin({
    "/away": redirectTo(() => `http://${elsewhere.host}/a.png`),
    "/local-hop": redirectTo(() => "/a.png"),
    "/a.png": serveBytes(png, "image/png"),
  });
  app = await createTestApp({ sourceHosts: [allowed.host] });
});

afterAll(async () => {
  await app?.close();
  await allowed?.close();
  await elsewhere?.close();
});

/** Another project of the app, with its own source list and key. */
async function project(slug: string, sourceHosts: string[]) {
  const created = await bootstrap(
    { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
    { teamSlug: `team-${slug}`, projectSlug: slug, keyName: "k", sourceHosts, allowLoopback: true },
  );
  return { slug, key: { publicKey: created.key.publicKey, secretKey: created.key.secretKey } };
}

describe("redirect hops and the project's allowed sources", () => {
  it("refuses a redirect from an allowed host to one the project did not allow, without connecting to it", async () => {
    const before = elsewhere.connections();
    const response = await app.fetch(app.signedPath("w_20", `http://${allowed.host}/away`));
    expect(response.status).toBe(502);
    expect(((await response.json()) as { code: string }).code).toBe("SOURCE_REDIRECT_FORBIDDEN");
    expect(elsewhere.connections()).toBe(before);
  });

  it("follows a redirect on the same host", async () => {
    const response = await app.fetch(app.signedPath("w_20", `http://${allowed.host}/local-hop`));
    expect(response.status).toBe(200);
  });

  it("follows a redirect to another allowed host, and `*` follows it anywhere public", async () => {
    for (const other of [await project("both", [allowed.host, elsewhere.host]), await project("any", ["*"])]) {
      const before = elsewhere.connections();
      const response = await app.fetch(app.signedPath("w_21", `http://${allowed.host}/away`, other));
      expect(response.status).toBe(200);
      expect(elsewhere.connections()).toBeGreaterThan(before);
    }
  });

  it("never serves a project a cached result that came through a redirect its own list refuses", async () => {
    const wide = await project("wide", [allowed.host, elsewhere.host]);
    const narrow = await project("narrow", [allowed.host]);
    const path = (who: typeof wide) => app.signedPath("w_22", `http://${allowed.host}/away`, who);
    expect((await app.fetch(path(wide))).status).toBe(200);
    const refused = await app.fetch(path(narrow));
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as { code: string }).code).toBe("SOURCE_REDIRECT_FORBIDDEN");
    // The wide project's copy is still a hit for itself.
    expect((await app.fetch(path(wide))).status).toBe(200);
    await app.settled();
    expect(app.outcomes.at(-1)?.cache).toBe("hit");
  });
});

import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "@/server/db/schema";
import { SOURCE_FAILURE_MEMORY_MS } from "@/server/delivery/source-failures";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { createTestApp, NO_REDIS, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { setupAudit } from "../../support/audit";

/**
 * A public URL whose source is missing can be replayed by anyone from many addresses. It used to be
 * fetched again on every replay, and each replay spent one of the key's transforms: 600 replays a
 * minute closed the key to its new variants. A key pays for work done for it; a source failure is
 * remembered, per source, for 30 s.
 */
let app: TestApp;
let origin: Origin;
let offsetMs = 0;

beforeAll(async () => {
  origin = await startOrigin({
    "/a.png": serveBytes(await makePng(40, 30), "image/png"),
    "/broken.png": (_, response) => void response.writeHead(500).end("upstream broke"),
  });
  app = await createTestApp({
    sourceHosts: [origin.host],
    env: { ...NO_REDIS, OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE: "30", OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE: "1000" },
    seams: { now: () => new Date(Date.now() + offsetMs) },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function keyWithMinuteLimit(perMinute: number) {
  await clearOfWindowEdge();
  const key = await createApiKey(
    { db: app.services.database.db, secretBox: app.services.secretBox, audit: setupAudit, now: () => new Date() },
    { projectId: app.projectId },
    { name: `failures-${perMinute}` },
  );
  await app.services.database.db.update(apiKeys).set({ rateLimitPerMinute: perMinute }).where(eq(apiKeys.id, key.id));
  return key;
}

/** A visitor of its own (a public IPv6 /64), as a crowd of replayers would be. */
const visitor = (): RequestInit => ({
  headers: { [PEER_ADDRESS_HEADER]: `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1` },
});
const fetchesOf = (path: string) => origin.requests.filter((r) => r.url === path).length;

describe("a source that fails", () => {
  it("is fetched once for its replays from many addresses, across variants, and costs the key nothing", async () => {
    const key = await keyWithMinuteLimit(5);
    const missing = (n: number) => app.signedPath(`w_${n}`, `http://${origin.host}/missing.png`, { key });
    for (let i = 0; i < 20; i++) {
      const response = await app.fetch(missing(100 + (i % 4)), visitor());
      expect(response.status, `replay ${i}`).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("SOURCE_NOT_FOUND");
    }
    expect(fetchesOf("/missing.png")).toBe(1);
    // Its five transforms a minute are all there for the key's real images.
    for (let n = 1; n <= 5; n++) {
      const response = await app.fetch(app.signedPath(`w_${n}`, `http://${origin.host}/a.png`, { key }), visitor());
      expect(response.status, `variant ${n}`).toBe(200);
    }
    expect((await app.fetch(app.signedPath("w_6", `http://${origin.host}/a.png`, { key }), visitor())).status).toBe(
      429,
    );
  });

  it("gives the key back its transform for each source that failed when fetched", async () => {
    const key = await keyWithMinuteLimit(3);
    for (let n = 0; n < 6; n++) {
      const path = app.signedPath("w_50", `http://${origin.host}/gone-${n}.png`, { key });
      expect((await app.fetch(path, visitor())).status).toBe(404);
    }
    for (const path of ["/broken.png"]) {
      const response = await app.fetch(app.signedPath("w_50", `http://${origin.host}${path}`, { key }), visitor());
      expect(response.status).toBe(502);
    }
    await app.settled();
    for (let n = 11; n <= 13; n++) {
      const response = await app.fetch(app.signedPath(`w_${n}`, `http://${origin.host}/a.png`, { key }), visitor());
      expect(response.status, `variant ${n}`).toBe(200);
    }
  });

  it("is tried again once the memory's time is over, and a source that works again is served", async () => {
    const key = await keyWithMinuteLimit(100);
    const path = app.signedPath("w_20", `http://${origin.host}/later.png`, { key });
    expect((await app.fetch(path, visitor())).status).toBe(404);
    expect((await app.fetch(path, visitor())).status).toBe(404);
    expect(fetchesOf("/later.png")).toBe(1);
    offsetMs += SOURCE_FAILURE_MEMORY_MS + 1000;
    expect((await app.fetch(path, visitor())).status).toBe(404);
    expect(fetchesOf("/later.png")).toBe(2);
  });

  it("still counts every replay against the address that sends it", async () => {
    const key = await keyWithMinuteLimit(100);
    const path = app.signedPath("w_21", `http://${origin.host}/missing-too.png`, { key });
    const one = visitor();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await app.fetch(path, one)).status);
    expect(statuses.slice(0, 30).every((status) => status === 404)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});

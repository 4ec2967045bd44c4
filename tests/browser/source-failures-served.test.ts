import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { clearOfWindowEdge } from "../support/clock";
import { makePng } from "../support/images";
import { serveBytes, startOrigin, type Origin } from "../support/origin";
import { buildSignedUrl } from "../support/signed-url";

/**
 * Replays of a URL whose source is missing, against the built app as `npm start` runs it: the origin
 * is asked once, and the key's transforms stay for its real images (they used to be spent, one per
 * replay, until every new variant of the key answered 429).
 */
let app: ServedApp;
let origin: Origin;
let key: { publicKey: string; secretKey: string };
const loopback = { OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "true" };

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(40, 30), "image/png") });
  app = await startServedApp(loopback, (dataDir) => {
    bootstrapProject(dataDir, ["--team", "shop", "--project", "shop", "--sources", origin.host], loopback);
    // A key of five transforms a minute, made by the command line before the server owns the database.
    const created = spawnSync(
      process.execPath,
      [
        "scripts/optstuff.mjs",
        ...["keys", "create", "--team", "shop", "--project", "shop", "--name", "small", "--per-minute", "5", "--json"],
      ],
      { env: { ...process.env, ...loopback, OPTSTUFF_DATA_DIR: dataDir, DATABASE_URL: "" }, encoding: "utf8" },
    );
    if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
    const { publicKey, secretKey } = JSON.parse(created.stdout) as { publicKey: string; secretKey: string };
    key = { publicKey, secretKey };
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await origin?.close();
});

const url = (operations: string, path: string) =>
  buildSignedUrl({
    baseUrl: app.baseUrl,
    projectSlug: "shop",
    ...key,
    operations,
    source: `http://${origin.host}${path}`,
  });

describe("a missing source replayed through the served app", () => {
  it("is fetched once, answers every replay 404, and leaves the key its transforms for new variants", async () => {
    // The key's minute is a sliding window: five transforms near a minute's end weigh less in the next.
    await clearOfWindowEdge(60_000, 15_000);
    for (let i = 0; i < 25; i++) {
      const response = await fetch(url(`w_${100 + (i % 5)}`, "/missing.png"));
      expect(response.status, `replay ${i}`).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("SOURCE_NOT_FOUND");
    }
    expect(origin.requests.filter((r) => r.url === "/missing.png")).toHaveLength(1);
    for (let n = 1; n <= 5; n++) {
      const response = await fetch(url(`w_${n}`, "/a.png"));
      expect(response.status, `variant ${n}`).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^image\//);
    }
    // The key's five are spent by its own images now.
    expect((await fetch(url("w_6", "/a.png"))).status).toBe(429);
  });
});

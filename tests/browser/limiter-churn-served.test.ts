import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { makePng } from "../support/images";
import { serveBytes, startOrigin, type Origin } from "../support/origin";
import { buildSignedUrl } from "../support/signed-url";

/**
 * The in-process limiter used to keep its 100,000 windows least-recently-admitted first, so cache hits
 * from more addresses than that reset a key's spent day. Against the built app, with the bound lowered
 * to 1,000 so that a test can pass it: 1,100 addresses later the spent key still refuses a new variant.
 * `next start` is used because it hands the peer-address header through as the client sent it, so one
 * test client can speak for many addresses (npm start overwrites it with the socket's).
 */
let app: ServedApp;
let origin: Origin;
let key: { publicKey: string; secretKey: string };
const METRICS_TOKEN = "churn-metrics-token-0123456789";
const env = {
  OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "true",
  OPTSTUFF_ADDRESS_WINDOWS_MAX: "1000",
  OPTSTUFF_METRICS_TOKEN: METRICS_TOKEN,
};

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(40, 30), "image/png") });
  app = await startServedApp(
    env,
    (dataDir) => {
      bootstrapProject(dataDir, ["--team", "churn", "--project", "churn", "--sources", origin.host], env);
      const created = spawnSync(
        process.execPath,
        [
          "scripts/optstuff.mjs",
          ...["keys", "create", "--team", "churn", "--project", "churn", "--name", "day"],
          ...["--per-minute", "3", "--per-day", "3", "--json"],
        ],
        { env: { ...process.env, ...env, OPTSTUFF_DATA_DIR: dataDir, DATABASE_URL: "" }, encoding: "utf8" },
      );
      if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
      const { publicKey, secretKey } = JSON.parse(created.stdout) as { publicKey: string; secretKey: string };
      key = { publicKey, secretKey };
    },
    "next start",
  );
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await origin?.close();
});

const url = (operations: string) =>
  buildSignedUrl({
    baseUrl: app.baseUrl,
    projectSlug: "churn",
    ...key,
    operations,
    source: `http://${origin.host}/a.png`,
  });
const from = (i: number) => ({
  headers: { [PEER_ADDRESS_HEADER]: `2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1` },
});

describe("the spent key's window in the served app", () => {
  it("still refuses a new variant after cache hits from more addresses than the limiter keeps", async () => {
    for (let n = 1; n <= 3; n++) expect((await fetch(url(`w_${n}`), from(900_000 + n))).status).toBe(200);
    expect((await fetch(url("w_4"), from(900_010))).status).toBe(429);
    const hit = url("w_1");
    let next = 0;
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 1100) {
          const response = await fetch(hit, from(next++));
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    expect(statuses).toEqual(new Map([[200, 1100]])); // cache hits cost the spent key nothing
    expect((await fetch(url("w_5"), from(900_020))).status).toBe(429);
    // The bound was in effect: 1,100 addresses passed through 1,000 windows.
    const metrics = await (
      await fetch(`${app.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const held = Number(/optstuff_ratelimit_windows\{kind="address"\} (\d+)/.exec(metrics)?.[1]);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(1000);
  }, 120_000);
});

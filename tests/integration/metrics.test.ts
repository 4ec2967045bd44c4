import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import nodePath from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricsRouteHandler } from "@/server/http/metrics-route";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createTestApp, NO_REDIS, redisSettings, type TestApp } from "../support/app";
import { makePng } from "../support/images";
import { serveBytes, startOrigin, type Origin } from "../support/origin";
import { startRealRedis, type RealRedis } from "../support/redis";
import { need } from "../support/services";

const redisServer = need("redis-server");

let app: TestApp;
let origin: Origin;
let redis: RealRedis;
const TOKEN = "metrics-token";

beforeAll(async () => {
  if (redisServer.skip) return;
  redis = await startRealRedis();
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(50, 40), "image/png") });
  app = await createTestApp({
    sourceHosts: [origin.host],
    env: { ...redisSettings(redis.settings), OPTSTUFF_METRICS_TOKEN: TOKEN, OPTSTUFF_CONFIG_CACHE_TTL_MS: "60000" },
  });
  const path = app.signedPath("w_20", `http://${origin.host}/a.png`);
  await app.services.coordination.kv.get("warm-up"); // the endpoint's first connection is not the config read's cost
  const visitor = { headers: { [PEER_ADDRESS_HEADER]: "203.0.113.5" } }; // a public address: its windows apply
  for (let i = 0; i < 2; i++) expect((await app.fetch(path, visitor)).status).toBe(200); // a miss, then a result-cache hit
  expect((await app.fetch(path.replace(/sig=[^&]+/, `sig=${"C".repeat(32)}`))).status).toBe(403);
  await app.settled();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
  await redis?.stop();
});

const scrape = (authorization?: string, services = app.services) =>
  createMetricsRouteHandler(async () => services)(
    new Request("http://optstuff.test/api/metrics", { headers: authorization ? { authorization } : {} }),
  );

/** The value of one sample line, e.g. `name{a="b"}`; `absent` if the series has no sample yet. */
function sample(text: string, series: string, absent?: number): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  if (!line && absent !== undefined) return absent;
  if (!line) throw new Error(`no sample ${series}`);
  return Number(line.slice(series.length + 1));
}

describe.skipIf(redisServer.skip)(redisServer.title("/api/metrics"), () => {
  it("requires the bearer token when one is configured", async () => {
    for (const authorization of [undefined, "Bearer wrong", `Basic ${TOKEN}`]) {
      const response = await scrape(authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual({
        code: "METRICS_UNAUTHORIZED",
        message: "Missing or wrong metrics token",
      });
    }
  });

  it("is off in production without a token: 404, saying which variable turns it on", async () => {
    const response = await scrape(undefined, { ...app.services, metricsAccess: "off" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      code: "METRICS_OFF",
      message: "Metrics are off: set OPTSTUFF_METRICS_TOKEN to read them",
    });
  });

  it("counts requests by status, times each phase, and reports caches, Redis and the process", async () => {
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(sample(text, 'optstuff_image_requests_total{status="success",code="200"}')).toBe(2);
    expect(sample(text, 'optstuff_image_requests_total{status="sig_invalid",code="403"}')).toBe(1);
    expect(sample(text, 'optstuff_image_request_duration_seconds_count{cache="miss"}')).toBe(1);
    expect(sample(text, 'optstuff_image_request_duration_seconds_count{cache="hit"}')).toBe(1);
    expect(sample(text, 'optstuff_image_phase_duration_seconds_count{phase="auth"}')).toBe(2);
    for (const phase of ["fetch", "queue", "transform"])
      expect(sample(text, `optstuff_image_phase_duration_seconds_count{phase="${phase}"}`)).toBe(1);
    expect(sample(text, 'optstuff_transforms{state="running"}')).toBe(0);
    expect(sample(text, 'optstuff_transforms{state="queued"}')).toBe(0);
    // Three lookups per namespace: the first read each key and project from Redis (then Postgres), the rest hit L1.
    expect(sample(text, 'optstuff_config_cache_lookups_total{lookup="l1_miss"}')).toBe(2);
    expect(sample(text, 'optstuff_config_cache_lookups_total{lookup="l1_hit"}')).toBe(4);
    // Each first read went to Redis: a miss, or (on a loaded machine) past its 50 ms budget, read from
    // Postgres instead and counted as a failure. Either way exactly two.
    const redisMisses = sample(text, 'optstuff_config_cache_lookups_total{lookup="redis_miss"}', 0);
    expect(redisMisses + sample(text, 'optstuff_redis_failures_total{use="configRead"}', 0)).toBe(2);
    // The miss: the address's request and transform windows, the key's minute and day; the hit: the address's request window.
    expect(sample(text, 'optstuff_redis_calls_total{operation="ratelimit_limit"}')).toBe(5);
    // Both served requests' usage: one write per usage window, so one, or two if the hit came after the
    // miss's window had closed.
    expect(sample(text, 'optstuff_redis_calls_total{operation="incrementHash"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'optstuff_redis_calls_total{operation="incrementHash"}')).toBeLessThanOrEqual(2);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
    const sent = sample(text, "optstuff_image_sent_bytes_total");
    expect(sent).toBe(app.outcomes.reduce((sum, o) => sum + (o.sentBytes ?? 0), 0));
  });
});

/** Without Redis: the embedded default as `npm start` runs it, its access read from its environment. */
describe("/api/metrics on the embedded default", () => {
  let embedded: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(nodePath.join(tmpdir(), "optstuff-metrics-embedded-"));
    // The metrics token as the embedded default has it: unset, so generated into the data directory.
    embedded = await createTestApp({
      env: { ...NO_REDIS, OPTSTUFF_DATA_DIR: dataDir, OPTSTUFF_METRICS_TOKEN: undefined },
    });
  }, 60_000);
  afterAll(async () => {
    await embedded?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("asks for the token generated into the data directory: a proxy in front of npm start exposes its loopback", async () => {
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${TOKEN}`, "Bearer "]) {
      const response = await scrape(authorization, embedded.services);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual({
        code: "METRICS_UNAUTHORIZED",
        message: "Missing or wrong metrics token",
      });
    }
    const generated = readFileSync(nodePath.join(dataDir, "metrics-token"), "utf8");
    const scraped = await scrape(`Bearer ${generated}`, embedded.services);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("process_resident_memory_bytes");
  });
});

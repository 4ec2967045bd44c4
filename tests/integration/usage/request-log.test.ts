import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLog } from "@/server/db/schema";
import { createCounters } from "@/server/coordination/counters";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import { createRequestLog } from "@/server/usage/request-log";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { makeGrain, makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

let app: TestApp;
let origin: Origin;

beforeAll(async () => {
  const grain = await makeGrain(120, 90);
  origin = await startOrigin({
    "/a.png": serveBytes(await makePng(40, 30), "image/png"),
    "/grain.png": serveBytes(grain, "image/png"),
  });
  app = await createTestApp({ sourceHosts: [origin.host], env: { OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE: "3" } });
});
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const rowsOf = (status: string) =>
  app.services.database.db.select().from(requestLog).where(eq(requestLog.status, status));

describe("request log", () => {
  it("writes a served image after the response, without the source's query or fragment", async () => {
    const response = await app.fetch(app.signedPath("w_20,f_webp", `http://${origin.host}/a.png?token=secret#frag`));
    expect(response.status).toBe(200);
    expect(await rowsOf("success")).toHaveLength(0); // not before the response is done
    await app.settled();
    const [row] = await rowsOf("success");
    expect(row).toMatchObject({
      projectId: app.projectId,
      apiKeyId: app.key.id,
      httpStatus: 200,
      sourceUrl: `http://${origin.host}/a.png`,
      operations: "w_20,f_webp",
      outputFormat: "webp",
      cache: "miss",
    });
    expect(row!.sourceBytes).toBeGreaterThan(0);
    expect(row!.outputBytes).toBe(Number(response.headers.get("content-length")));
    expect(row!.processingMs).toBeGreaterThanOrEqual(0);
  });

  it("records q_auto's chosen quality and score with the request, as the answer's header says; none for a fixed quality", async () => {
    const operations = "w_30,q_auto:eco,f_webp";
    const response = await app.fetch(app.signedPath(operations, `http://${origin.host}/a.png`));
    expect(response.status).toBe(200);
    const [quality, score] = /^(\d+); score=([\d.]+)$/.exec(response.headers.get("x-optstuff-quality")!)!.slice(1);
    await app.settled();
    const rows = await app.services.database.db.select().from(requestLog).where(eq(requestLog.operations, operations));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.quality).toBe(Number(quality));
    // The header rounds to a tenth; the column keeps a float4.
    expect(Math.abs(rows[0]!.score! - Number(score))).toBeLessThanOrEqual(0.051);
    const [fixed] = await rowsOf("success");
    expect(fixed).toMatchObject({ operations: "w_20,f_webp", quality: null, score: null });
  });

  it("says when the level was out of reach, in the header and in the row", async () => {
    const operations = "w_120,q_auto:best,f_webp";
    const response = await app.fetch(app.signedPath(operations, `http://${origin.host}/grain.png`));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-optstuff-quality")).toMatch(/^\d+; score=-?[\d.]+; unreached$/);
    await app.settled();
    const [row] = await app.services.database.db.select().from(requestLog).where(eq(requestLog.operations, operations));
    expect(row).toMatchObject({ unreached: true });
    expect(row!.score).toBeLessThan(90);
    const [reached] = await app.services.database.db
      .select()
      .from(requestLog)
      .where(eq(requestLog.operations, "w_30,q_auto:eco,f_webp"));
    expect(reached!.unreached).toBeNull();
  });

  it("keeps failures with their status, capped per project and minute", async () => {
    await clearOfWindowEdge(60_000, 10_000);
    const forged = app.signedPath("w_21", `http://${origin.host}/a.png`).replace(/sig=[^&]+/, `sig=${"A".repeat(32)}`);
    for (let i = 0; i < 8; i++) expect((await app.fetch(forged)).status).toBe(403);
    await app.settled();
    const rows = await rowsOf("sig_invalid");
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.httpStatus === 403 && r.projectId === app.projectId)).toBe(true);
    expect(app.services.counters.get("request_log_skipped")).toBeGreaterThanOrEqual(5);
  });

  it("samples successes at the configured rate and writes each batch in one statement", async () => {
    const db = app.services.database.db;
    const counters = createCounters();
    let draws = 0;
    const log = createRequestLog(
      { db, kv: createMemoryKeyValue(), counters, logSampled: () => {}, random: () => (draws++ % 4) / 4 },
      {
        successSampleRate: 0.5,
        failuresPerProjectMinute: 10,
        successesPerProjectMinute: 1000,
        batchSize: 1000,
        batchWindowMs: 10,
      },
    );
    const at = new Date();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        log.record(
          { requestId: `sampled-${i}`, status: "success", httpStatus: 200, projectId: app.projectId, durationMs: 3 },
          at,
        ),
      ),
    );
    const written = (await db.select().from(requestLog)).filter((r) => r.requestId.startsWith("sampled-"));
    expect(written).toHaveLength(20);
    expect(written.every((r) => r.weight === 2)).toBe(true); // each stands for two requests
    expect(counters.get("request_log_rows")).toBe(20);
    // Outcomes without a project (unknown key, malformed URL) are not the project's to read.
    await log.record({ requestId: "anonymous", status: "bad_request", httpStatus: 400, durationMs: 1 }, at);
    await log.drain();
    expect((await db.select().from(requestLog)).some((r) => r.requestId === "anonymous")).toBe(false);
  });
});

import { sql } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import { requestLog, usageRecord } from "@/server/db/schema";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { signedFor } from "../support/signed-url";

/**
 * On SIGTERM the embedded default writes the pending request log (and the usage buffered with it) and
 * flushes every buffered minute, the current one included, so the usage pages are current at once.
 */
let app: ServedApp;
afterAll(() => app?.stop());

it("writes the pending request log and flushes every buffered minute on SIGTERM", async () => {
  let vars: Record<string, string> = {};
  app = await startServedApp({}, (dataDir) => {
    vars = bootstrapProject(dataDir);
  });
  let bytes = 0;
  for (const width of [50, 60, 70]) {
    const url = signedFor(app.baseUrl, vars, `w_${width},f_png`, "local/photo.jpg");
    const response = await fetch(url);
    expect(response.status).toBe(200);
    bytes += (await response.arrayBuffer()).byteLength;
  }
  // A missing source is the client's 404 under `next start` too, where the error is thrown by another
  // bundle's copy of the error module than the route's (not a 500).
  const missing = await fetch(signedFor(app.baseUrl, vars, "w_50", "local/missing.jpg"));
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { code: string }).code).toBe("SOURCE_NOT_FOUND");
  await new Promise((resolve) => setTimeout(resolve, 300)); // after-response work of the last request

  expect(await app.terminate()).toBe(0);
  const database = await openDatabase({ kind: "pglite", dataDir: app.dataDir });
  try {
    const [usage] = await database.db
      .select({
        requests: sql<number>`sum(${usageRecord.requests})::float8`,
        bytes: sql<number>`sum(${usageRecord.bytes})::float8`,
      })
      .from(usageRecord);
    expect(usage).toEqual({ requests: 3, bytes });
    const logged = await database.db.select({ status: requestLog.status }).from(requestLog);
    expect(logged.map((row) => row.status).sort()).toEqual(["source_error", "success", "success", "success"]);
  } finally {
    await database.close();
  }
}, 120_000);

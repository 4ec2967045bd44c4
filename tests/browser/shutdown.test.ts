import { sql } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import { requestLog, usageRecord } from "@/server/db/schema";
import { buildSignedUrl } from "@/server/signing";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";

/**
 * On the embedded default usage is buffered in the process: SIGTERM must flush it (the current minute
 * included) and write the pending request log before the process exits, or that traffic is lost.
 */
let app: ServedApp;
afterAll(() => app?.stop());

it("flushes usage buffered in process and the request log on SIGTERM", async () => {
  let vars: Record<string, string> = {};
  app = await startServedApp({}, (dataDir) => {
    vars = bootstrapProject(dataDir);
  });
  let bytes = 0;
  for (const width of [50, 60, 70]) {
    const url = buildSignedUrl({
      baseUrl: app.baseUrl,
      projectSlug: vars.OPTSTUFF_PROJECT_SLUG!,
      publicKey: vars.OPTSTUFF_PUBLIC_KEY!,
      secretKey: vars.OPTSTUFF_SECRET_KEY!,
      operations: `w_${width},f_png`,
      source: "local/photo.jpg",
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    bytes += (await response.arrayBuffer()).byteLength;
  }
  // A missing source is the client's 404 under `next start` too, where the error is thrown by another
  // bundle's copy of the error module than the route's (not a 500).
  const missing = await fetch(
    buildSignedUrl({ baseUrl: app.baseUrl, projectSlug: vars.OPTSTUFF_PROJECT_SLUG!, publicKey: vars.OPTSTUFF_PUBLIC_KEY!, secretKey: vars.OPTSTUFF_SECRET_KEY!, operations: "w_50", source: "local/missing.jpg" }),
  );
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { code: string }).code).toBe("SOURCE_NOT_FOUND");
  await new Promise((resolve) => setTimeout(resolve, 300)); // after-response work of the last request

  expect(await app.terminate()).toBe(0);
  const database = await openDatabase({ kind: "pglite", dataDir: app.dataDir });
  try {
    const [usage] = await database.db.select({ requests: sql<number>`sum(${usageRecord.requests})::float8`, bytes: sql<number>`sum(${usageRecord.bytes})::float8` }).from(usageRecord);
    expect(usage).toEqual({ requests: 3, bytes });
    const logged = await database.db.select({ status: requestLog.status }).from(requestLog);
    expect(logged.map((row) => row.status).sort()).toEqual(["source_error", "success", "success", "success"]);
  } finally {
    await database.close();
  }
}, 120_000);

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import { requestLog, usageRecord } from "@/server/db/schema";
import { bootstrapProject } from "../../support/browser";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * The embedded default (PGlite, no Redis) killed with SIGKILL: no shutdown handler runs, nothing in
 * the process's memory survives. What was served and logged must be metered, exactly, once the next
 * process on the same data directory has flushed; and a request is logged and metered, or neither.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), "optstuff-kill9-"));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(children.map(exited));
  rmSync(dataDir, { recursive: true, force: true });
});

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

async function startEmbedded(): Promise<{ child: ChildProcess; baseUrl: string; recorded: () => number }> {
  // tsx as a loader of this very process: its CLI would run the app in a child that a SIGKILL misses.
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/embedded-instance.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      OPTSTUFF_DATA_DIR: dataDir,
      DATABASE_URL: "",
      UPSTASH_REDIS_REST_URL: "",
      UPSTASH_REDIS_REST_TOKEN: "",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let printed = "";
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      const port = /READY (\d+)/.exec(printed)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.once("exit", (code) => reject(new Error(`the embedded instance exited with ${code}`)));
  });
  // Requests whose log row and metering the instance has written (tests/support/embedded-instance.ts).
  const recorded = () => printed.match(/^RECORDED$/gm)?.length ?? 0;
  return { child, baseUrl, recorded };
}

async function kill9(child: ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await exited(child);
  expect(child.signalCode).toBe("SIGKILL");
}

it("meters every request served before a kill -9 exactly once, and a request is logged and metered or neither", async () => {
  const vars = bootstrapProject(dataDir);
  const image = (baseUrl: string, width: number) =>
    buildSignedUrl({
      baseUrl,
      projectSlug: vars.OPTSTUFF_PROJECT_SLUG!,
      publicKey: vars.OPTSTUFF_PUBLIC_KEY!,
      secretKey: vars.OPTSTUFF_SECRET_KEY!,
      operations: `w_${width},f_png`,
      source: "local/photo.jpg",
    });
  const get = async (url: string) => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    return (await response.arrayBuffer()).byteLength;
  };

  // N requests, then past the loss window (the request log's batch window and its commit: waited for as
  // the instance's word that each request's recording is done, not as a time a busy machine can
  // outlast), then SIGKILL: the shutdown flush never runs.
  const N = 12;
  let first = await startEmbedded();
  let bytes = 0;
  for (let i = 0; i < N; i++) bytes += await get(image(first.baseUrl, 40 + (i % 4)));
  await expect.poll(first.recorded, { timeout: 20_000 }).toBe(N);
  await kill9(first.child);

  // Eight more at once, killed the moment the last answer arrives: some may be lost, but never a log
  // row without its metering or the reverse.
  first = await startEmbedded();
  await Promise.all(Array.from({ length: 8 }, (_, i) => get(image(first.baseUrl, 50 + i))));
  await kill9(first.child);

  const next = await startEmbedded();
  const { cron } = JSON.parse(readFileSync(path.join(dataDir, "secrets.json"), "utf8")) as { cron: string };
  // The instance's own minute flush may hold the lock at that moment ("locked"): asked again until
  // this one runs, which then flushes whatever that one left.
  const flush = async () => {
    const answer = await fetch(`${next.baseUrl}/api/cron/flush-usage-buffer?safetyLagSeconds=0`, {
      headers: { authorization: `Bearer ${cron}` },
    });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { ok: boolean; outcome: string; droppedRequests: number };
  };
  let flushed = await flush();
  for (let tries = 0; flushed.outcome === "locked" && tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    flushed = await flush();
  }
  expect(flushed).toMatchObject({ ok: true, outcome: "flushed", droppedRequests: 0 });
  await kill9(next.child);

  const database = await openDatabase({ kind: "pglite", dataDir });
  try {
    const [usage] = await database.db
      .select({
        requests: sql<number>`coalesce(sum(${usageRecord.requests}), 0)::float8`,
        bytes: sql<number>`coalesce(sum(${usageRecord.bytes}), 0)::float8`,
      })
      .from(usageRecord);
    const logged = await database.db
      .select({ width: requestLog.operations, bytes: requestLog.outputBytes })
      .from(requestLog)
      .where(eq(requestLog.status, "success"));
    const firstRound = logged.filter((row) => /^w_4\d,/.test(row.width ?? ""));
    const secondRound = logged.filter((row) => /^w_5\d,/.test(row.width ?? ""));
    expect(firstRound).toHaveLength(N);
    expect(firstRound.reduce((sum, row) => sum + (row.bytes ?? 0), 0)).toBe(bytes);
    expect(secondRound.length).toBeLessThanOrEqual(8);
    // Metering equals the log, request for request and byte for byte.
    expect(usage).toEqual({
      requests: N + secondRound.length,
      bytes: logged.reduce((sum, row) => sum + (row.bytes ?? 0), 0),
    });
  } finally {
    await database.close();
  }
}, 180_000);

import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startRealRedis } from "../support/redis";
import { need } from "../support/services";

const redisServer = need("redis-server");

const run = promisify(execFile);

// What Next's instrumentation hook runs when the server starts, in a process of its own.
function startServer(env: Record<string, string>) {
  const script = 'import("./src/server/startup.ts").then((m) => m.startServer()).then(() => process.exit(0))';
  const fullEnv: NodeJS.ProcessEnv = {
    NODE_ENV: "development",
    PATH: process.env.PATH ?? "",
    OPTSTUFF_DATA_DIR: mkdtempSync(path.join(tmpdir(), "optstuff-start-")),
    ...env,
  };
  return run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--eval", script], {
    env: fullEnv,
    timeout: 60_000,
    encoding: "utf8",
  }).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (failure: { code: number; stdout: string; stderr: string }) => failure,
  );
}

describe("server start", () => {
  it("stops with exit code 1 and names the missing production secrets", async () => {
    const result = await startServer({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
      CRON_SECRET: "given",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "Missing required secret(s) in production: OPTSTUFF_KEY_ENCRYPTION_SECRET, BETTER_AUTH_SECRET",
    );
    expect(result.stderr).not.toContain("nobody@");
  });

  it("stops with exit code 1 naming an invalid variable", async () => {
    const result = await startServer({ OPTSTUFF_MAX_SOURCE_BYTES: "lots" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("OPTSTUFF_MAX_SOURCE_BYTES");
  });

  it("starts on the embedded default and says so", async () => {
    const result = await startServer({});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"message":"OptStuff ready"');
    expect(result.stdout).toContain("in-process (single instance only)");
  });

  it.each([
    ["UPSTASH_REDIS_REST_URL", { UPSTASH_REDIS_REST_TOKEN: "a-token-that-stays-private" }],
    ["UPSTASH_REDIS_REST_TOKEN", { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1" }],
  ])("refuses half an Upstash configuration, naming the missing %s", async (missing, given) => {
    const result = await startServer(given);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Invalid environment");
    expect(result.stderr).toContain(`${missing}: `);
    expect(result.stderr).not.toContain("Startup failed");
    expect(result.stderr).not.toContain("a-token-that-stays-private");
    expect(result.stdout).not.toContain("OptStuff ready");
  });

  function readyLine(stdout: string): Record<string, unknown> {
    const line = stdout.split("\n").find((l) => l.includes('"message":"OptStuff ready"'));
    if (!line) throw new Error(`no ready line in ${stdout}`);
    return JSON.parse(line) as Record<string, unknown>;
  }

  it("summarises the services it built: embedded database, in-process coordination, transform processes, registration", async () => {
    // One data directory for the three starts: the first makes the database, the others open it.
    const OPTSTUFF_DATA_DIR = mkdtempSync(path.join(tmpdir(), "optstuff-start-"));
    const result = await startServer({ OPTSTUFF_DATA_DIR, OPTSTUFF_REGISTRATION: "open" });
    expect(result.code).toBe(0);
    expect(readyLine(result.stdout)).toMatchObject({
      database: expect.stringContaining("embedded PGlite") as unknown,
      coordination: "in-process (single instance only)",
      transformIsolation: "stills within budget in the server process, the rest in child processes",
      registration: "open",
    });
    const isolated = await startServer({ OPTSTUFF_DATA_DIR, OPTSTUFF_TRANSFORM_ISOLATION: "process" });
    expect(readyLine(isolated.stdout)).toMatchObject({ transformIsolation: "child processes" });
    const inProcess = await startServer({ OPTSTUFF_DATA_DIR, OPTSTUFF_TRANSFORM_ISOLATION: "none" });
    expect(readyLine(inProcess.stdout)).toMatchObject({
      transformIsolation: "in the server process",
      registration: "invite-only",
    });
  });

  it.skipIf(redisServer.skip)(
    redisServer.title(
      "says Upstash Redis only when it built the shared coordination, and never prints its URL or token",
    ),
    async () => {
      const redis = await startRealRedis();
      try {
        const result = await startServer({
          UPSTASH_REDIS_REST_URL: redis.settings.url,
          UPSTASH_REDIS_REST_TOKEN: redis.settings.token,
        });
        expect(result.code).toBe(0);
        expect(readyLine(result.stdout)).toMatchObject({ coordination: "Upstash Redis (shared by every instance)" });
        expect(result.stdout).not.toContain(redis.settings.token);
        expect(result.stdout).not.toContain(redis.settings.url);
      } finally {
        await redis.stop();
      }
    },
  );

  it.skipIf(redisServer.skip)(
    redisServer.title("says Redis over TCP when REDIS_URL is set, and never prints the URL (it may carry a password)"),
    async () => {
      const redis = await startRealRedis();
      try {
        const result = await startServer({ REDIS_URL: redis.tcp!.url });
        expect(result.code).toBe(0);
        expect(readyLine(result.stdout)).toMatchObject({
          coordination: "Redis over TCP (REDIS_URL, shared by every instance)",
        });
        expect(result.stdout).not.toContain(redis.tcp!.url);
      } finally {
        await redis.stop();
      }
    },
  );
});

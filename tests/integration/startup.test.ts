import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

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
    const result = await startServer({ NODE_ENV: "production", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", CRON_SECRET: "given" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Missing required secret(s) in production: OPTSTUFF_KEY_ENCRYPTION_SECRET, BETTER_AUTH_SECRET");
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
});

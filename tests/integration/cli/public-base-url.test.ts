import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The address a command prints (OPTSTUFF_BASE_URL, the demo URL, doctor's server check) is the one the
 * dashboard shows: the server works it out of its settings and writes it down in its data directory
 * when it starts, so a command run in another shell, without the server's PORT, prints it too. The
 * newcomer's case: `PORT=4820 npm start`, then `npm run optstuff -- keys create` printed port 3000.
 */
const run = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const base = (dataDir: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  OPTSTUFF_DATA_DIR: dataDir,
  // The embedded database: the server's data directory is where it writes its address down.
  DATABASE_URL: "",
});

function settle(pending: Promise<{ stdout: string; stderr: string }>): Promise<Run> {
  return pending.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (failure: { code: number; stdout: string; stderr: string }) => failure,
  );
}

/** What Next's instrumentation hook runs when the server starts (as tests/integration/startup.test.ts does). */
function startServer(dataDir: string, env: Record<string, string>): Promise<Run> {
  const script = 'import("./src/server/startup.ts").then((m) => m.startServer()).then(() => process.exit(0))';
  return settle(
    run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--eval", script], {
      env: { ...base(dataDir), NODE_ENV: "development", ...env } as NodeJS.ProcessEnv,
      timeout: 90_000,
      encoding: "utf8",
    }),
  );
}

/** The CLI as a user runs it in another shell: none of the server's variables unless given. */
function optstuff(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return settle(
    run(process.execPath, ["scripts/optstuff.mjs", ...args], {
      env: { ...base(dataDir), ...env } as NodeJS.ProcessEnv,
      timeout: 90_000,
      encoding: "utf8",
    }),
  );
}

function credentials(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^(OPTSTUFF_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

const blog = ["--team", "acme", "--project", "blog"];

describe("the address every command prints", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "optstuff-address-"));

  beforeAll(async () => {
    const started = await startServer(dataDir, { PORT: "4820" });
    expect(started.code, started.stderr).toBe(0);
  }, 90_000);

  it("is the server's (PORT=4820) in a shell without PORT: bootstrap, keys create and keys rotate", async () => {
    const booted = await optstuff(dataDir, ["bootstrap", ...blog, "--sources", "local"]);
    expect(booted.code, booted.stderr).toBe(0);
    expect(credentials(booted.stdout).OPTSTUFF_BASE_URL).toBe("http://127.0.0.1:4820");
    expect(booted.stdout).toMatch(/^http:\/\/127\.0\.0\.1:4820\/api\/v1\/blog\/\S+$/m);

    const created = await optstuff(dataDir, ["keys", "create", ...blog, "--name", "second"]);
    expect(created.code, created.stderr).toBe(0);
    const vars = credentials(created.stdout);
    expect(vars.OPTSTUFF_BASE_URL).toBe("http://127.0.0.1:4820");
    expect(created.stdout).toMatch(/^http:\/\/127\.0\.0\.1:4820\/api\/v1\/blog\/\S+$/m);

    const rotated = await optstuff(dataDir, ["keys", "rotate", ...blog, "--key", vars.OPTSTUFF_PUBLIC_KEY!, "--json"]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const answer = JSON.parse(rotated.stdout) as { baseUrl: string; demoUrl: string };
    expect(answer.baseUrl).toBe("http://127.0.0.1:4820");
    expect(answer.demoUrl).toMatch(/^http:\/\/127\.0\.0\.1:4820\/api\/v1\/blog\//);
  });

  it("is the command's own when its environment names it: OPTSTUFF_PUBLIC_BASE_URL first, else HOST and PORT", async () => {
    const explicit = await optstuff(dataDir, ["keys", "create", ...blog, "--name", "explicit", "--json"], {
      OPTSTUFF_PUBLIC_BASE_URL: "https://img.example.com/",
      PORT: "4830",
    });
    expect(explicit.code, explicit.stderr).toBe(0);
    expect(JSON.parse(explicit.stdout)).toMatchObject({ baseUrl: "https://img.example.com" });

    const cases: Array<[Record<string, string>, string]> = [
      [{ PORT: "4830" }, "http://127.0.0.1:4830"],
      [{ HOST: "127.0.0.9", PORT: "4830" }, "http://127.0.0.9:4830"],
      // A wildcard is where the server listens, not an address to visit: loopback reaches it.
      [{ HOST: "0.0.0.0" }, "http://127.0.0.1:3000"],
      [{ HOST: "::1", PORT: "4831" }, "http://[::1]:4831"],
    ];
    for (const [env, expected] of cases) {
      const answered = await optstuff(dataDir, ["keys", "create", ...blog, "--name", "own", "--json"], env);
      expect(answered.code, answered.stderr).toBe(0);
      expect(JSON.parse(answered.stdout), JSON.stringify(env)).toMatchObject({ baseUrl: expected });
    }
  });

  it("follows the server when it starts elsewhere", async () => {
    const started = await startServer(dataDir, {
      PORT: "4840",
      OPTSTUFF_PUBLIC_BASE_URL: "https://images.example.org",
    });
    expect(started.code, started.stderr).toBe(0);
    const created = await optstuff(dataDir, ["keys", "create", ...blog, "--name", "moved", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ baseUrl: "https://images.example.org" });
  }, 90_000);
});

import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sign, signaturePayload } from "@/server/signing";
import { createTestDatabase } from "../../support/database";

const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), "optstuff-cli-"));
let databaseUrl: string | undefined;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

// On PostgreSQL runs the CLI gets its own database through DATABASE_URL; otherwise the embedded one.
beforeAll(async () => {
  if (!process.env.TEST_DATABASE_URL) return;
  database = await createTestDatabase();
  databaseUrl = database.url;
});
afterAll(async () => database?.close());

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    OPTSTUFF_DATA_DIR: dataDir,
    PORT: "4100",
    ...extraEnv,
  };
  if (databaseUrl && !("DATABASE_URL" in extraEnv)) env.DATABASE_URL = databaseUrl;
  return run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/optstuff.ts", ...args], {
    env: env as NodeJS.ProcessEnv,
    timeout: 60_000,
    encoding: "utf8",
  });
}

function parseCredentials(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^(OPTSTUFF_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

describe("optstuff CLI", () => {
  it("bootstraps a team, project and key and prints ready-to-use credentials and a signed URL", async () => {
    const { stdout } = await cli([
      "bootstrap",
      "--team",
      "acme",
      "--project",
      "blog",
      "--sources",
      "local,cdn.example.com",
    ]);
    const vars = parseCredentials(stdout);
    expect(vars.OPTSTUFF_BASE_URL).toBe("http://127.0.0.1:4100");
    expect(vars.OPTSTUFF_PROJECT_SLUG).toBe("blog");
    expect(vars.OPTSTUFF_PUBLIC_KEY).toMatch(/^pk_[A-Za-z0-9_-]{22}$/);
    expect(vars.OPTSTUFF_SECRET_KEY).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    const url = new URL(stdout.match(/^http:\/\/\S+$/m)![0]);
    expect(url.pathname).toBe("/api/v1/blog/w_640%2Cq_75%2Cf_webp/local/photo.jpg");
    expect(url.searchParams.get("sig")).toBe(
      sign(vars.OPTSTUFF_SECRET_KEY!, signaturePayload("w_640,q_75,f_webp", "local/photo.jpg")),
    );
  });

  it("reuses the team and project, sets source hosts, and refuses unsafe ones with a clear message", async () => {
    const { stdout } = await cli([
      "sources",
      "--team",
      "acme",
      "--project",
      "blog",
      "--set",
      "HTTPS://CDN.Example.com.,*.img.example.com",
    ]);
    expect(stdout).toContain("https://cdn.example.com, *.img.example.com");
    const refused = await cli(["sources", "--team", "acme", "--project", "blog", "--set", "10.0.0.5"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain('"10.0.0.5" is not a valid source host');
    const missing = await cli(["key", "--team", "nobody", "--project", "blog"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((missing as { stderr: string }).stderr).toContain('No team with slug "nobody"');
  });

  it("purges a source or the whole project, and refuses what is not a source URL", async () => {
    const one = await cli([
      "purge",
      "--team",
      "acme",
      "--project",
      "blog",
      "--source",
      "https://CDN.example.com/a/cat.jpg?v=2",
    ]);
    expect(one.stdout).toContain("Purged https://cdn.example.com/a/cat.jpg; 0 stored result(s) deleted.");
    expect(one.stdout).toMatch(/# CDN: purge the cache tag optstuff-s-[A-Za-z0-9_-]{22}/);
    const all = await cli(["purge", "--team", "acme", "--project", "blog"]);
    expect(all.stdout).toContain("Purged every result of blog");
    expect(all.stdout).toMatch(/# CDN: purge the cache tag optstuff-p-[0-9a-f-]{36}/);
    const bad = await cli(["purge", "--team", "acme", "--project", "blog", "--source", "ftp://x/y"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain("Not a source URL");
  });

  it("stops with a message naming the missing secrets in production", async () => {
    const failure = await cli(["bootstrap"], {
      NODE_ENV: "production",
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain("OPTSTUFF_KEY_ENCRYPTION_SECRET, BETTER_AUTH_SECRET");
  });
});

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { createProject, findProject } from "@/server/tenancy/projects";
import { findTeamBySlug } from "@/server/tenancy/teams";
import { createSecretBox, sign, signaturePayload } from "@/server/signing";
import { createTestDatabase } from "../../support/database";
import { buildSignedUrl } from "../../support/signed-url";
import { setupAudit } from "../../support/audit";

const run = promisify(execFile);
let databaseUrl: string | undefined;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

// On PostgreSQL runs the CLI gets its own database through DATABASE_URL; otherwise the embedded one.
beforeAll(async () => {
  if (!process.env.TEST_DATABASE_URL) return;
  database = await createTestDatabase();
  databaseUrl = database.url;
});
afterAll(async () => database?.close());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI as a user runs it (`npm run optstuff -- …`), in a process of its own. */
function optstuff(dataDir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    OPTSTUFF_DATA_DIR: dataDir,
    PORT: "4100",
    ...extraEnv,
  };
  if (databaseUrl && !("DATABASE_URL" in extraEnv)) env.DATABASE_URL = databaseUrl;
  return run(process.execPath, ["scripts/optstuff.mjs", ...args], {
    env: env as NodeJS.ProcessEnv,
    timeout: 90_000,
    encoding: "utf8",
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (failure: { code: number; stdout: string; stderr: string }) => failure,
  );
}

function credentials(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^(OPTSTUFF_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

const json = <T>(result: Run): T => {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
};

describe("optstuff on a database", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "optstuff-cli-"));
  const cli = (...args: string[]) => optstuff(dataDir, args);
  const blog = ["--team", "acme", "--project", "blog"];

  it("shows nothing and makes nothing on a fresh machine: a command that reads never creates the database", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "optstuff-cli-empty-"));
    const listed = await optstuff(empty, ["teams", "list"], { DATABASE_URL: "" });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toBe(
      `optstuff: There is no embedded database in ${empty} yet: it is made when the server first starts (npm start), or by optstuff bootstrap.\n`,
    );
    const doctor = await optstuff(empty, ["doctor", "--json"], { DATABASE_URL: "" });
    const findings = json<Array<{ check: string; status: string; detail: string }>>(doctor);
    expect(findings.map((f) => f.check)).toEqual([
      "configuration",
      "secrets",
      "metrics",
      "database",
      "redis",
      "object store",
      "scratch space",
      "transform worker",
      "server",
    ]);
    // Nothing listens on PORT 4100: said, as a warning (the exit code stays 0: nothing is misconfigured).
    expect(findings.filter((f) => f.status !== "ok")).toEqual([
      {
        check: "server",
        status: "warn",
        detail: `not running: nothing answers at http://127.0.0.1:4100 (as this environment's OPTSTUFF_PUBLIC_BASE_URL, HOST and PORT give it); npm start starts it`,
      },
    ]);
    expect(findings.find((f) => f.check === "database")!.detail).toContain("not made yet");
    // Where the /api/metrics token will be, for the operator's scraper.
    expect(findings.find((f) => f.check === "metrics")!.detail).toContain(path.join(empty, "metrics-token"));
    expect(findings.find((f) => f.check === "transform worker")!.detail).toMatch(/made a webp in \d+ ms/);
    expect(readdirSync(empty)).toEqual([]);
  });

  it("bootstraps a team, project and key and prints ready-to-use credentials and a signed URL", async () => {
    const { stdout, code } = await cli("bootstrap", ...blog, "--sources", "local,cdn.example.com");
    expect(code).toBe(0);
    const vars = credentials(stdout);
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

  it("shows the source hosts without changing them, and sets them only with sources set", async () => {
    // Asked to show them, the command used to empty the list (every remote image of the project then 403).
    for (let i = 0; i < 2; i++) {
      const shown = await cli("sources", ...blog);
      expect(shown).toEqual({ code: 0, stdout: "local\ncdn.example.com\n", stderr: "" });
    }
    expect(json<string[]>(await cli("sources", "show", ...blog, "--json"))).toEqual(["local", "cdn.example.com"]);
    const set = await cli("sources", "set", ...blog, "HTTPS://CDN.Example.com.,*.img.example.com", "local");
    expect(set.stdout).toBe("Allowed source hosts of acme/blog:\nhttps://cdn.example.com\n*.img.example.com\nlocal\n");
    const refused = await cli("sources", "set", ...blog, "10.0.0.5");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('"10.0.0.5" is not a valid source host');
    // Every bad entry is named, not only the first; the list stays as it was.
    const several = await cli("sources", "set", ...blog, "10.0.0.5,cdn.example.com", "localhost", "169.254.169.254");
    expect(several).toMatchObject({
      code: 2,
      stdout: "",
      stderr:
        'optstuff: 3 source hosts are not valid: "10.0.0.5" and "169.254.169.254" (private, loopback and reserved addresses are not allowed); "localhost" (local and internal host names are not allowed)\n',
    });
    expect(json<string[]>(await cli("sources", ...blog, "--json"))).toEqual([
      "https://cdn.example.com",
      "*.img.example.com",
      "local",
    ]);
    const tooMany = await cli(
      "sources",
      "set",
      ...blog,
      Array.from({ length: 101 }, (_, i) => `h${i}.example`).join(","),
    );
    expect(tooMany).toMatchObject({ code: 2, stderr: "optstuff: At most 100 hosts\n" });
  });

  it("shows and sets the referer hosts, and empties a list only when told --none", async () => {
    expect(await cli("referers", ...blog)).toMatchObject({
      code: 0,
      stdout: "(none: any site may embed the images)\n",
    });
    expect((await cli("referers", "set", ...blog, "www.example.com")).code).toBe(0);
    expect(json<string[]>(await cli("referers", ...blog, "--json"))).toEqual(["www.example.com"]);
    expect((await cli("referers", "set", ...blog, "--none")).code).toBe(0);
    expect(json<string[]>(await cli("referers", ...blog, "--json"))).toEqual([]);
  });

  it("names a team or project that does not exist, and changes nothing", async () => {
    const team = await cli("keys", "create", "--team", "nobody", "--project", "blog", "--name", "k");
    expect(team).toMatchObject({ code: 2, stderr: 'optstuff: No team "nobody" (optstuff teams list shows them)\n' });
    const project = await cli("sources", "set", "--team", "acme", "--project", "nope", "a.example");
    expect(project).toMatchObject({
      code: 2,
      stderr: 'optstuff: No project "nope" in team "acme" (optstuff projects list --team acme)\n',
    });
  });

  it("lists teams and projects for scripts", async () => {
    const teams = json<Array<{ slug: string; members: number; projects: number }>>(
      await cli("teams", "list", "--json"),
    );
    expect(teams).toEqual([expect.objectContaining({ slug: "acme", members: 0, projects: 1 })]);
    const projects = json<Array<{ slug: string }>>(await cli("projects", "list", "--team", "acme", "--json"));
    expect(projects.map((p) => p.slug)).toEqual(["blog"]);
    expect((await cli("teams", "list")).stdout).toMatch(/^SLUG +NAME +MEMBERS +PROJECTS\nacme +acme +0 +1\n$/);
  });

  it("creates keys with limits and an expiry, lists, rotates and revokes them", async () => {
    const before = Date.now();
    const created = json<{ publicKey: string; secretKey: string; expiresAt: string }>(
      await cli(
        "keys",
        "create",
        ...blog,
        "--name",
        "production",
        "--expires-in-days",
        "30",
        "--per-minute",
        "50",
        "--per-day",
        "5000",
        "--json",
      ),
    );
    expect(created.secretKey).toMatch(/^sk_/);
    const expires = new Date(created.expiresAt).getTime();
    expect(expires - before).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
    // Above the day's limit, as the dashboard refuses it.
    const inverted = await cli("keys", "create", ...blog, "--name", "x", "--per-minute", "500", "--per-day", "100");
    expect(inverted).toMatchObject({
      code: 2,
      stderr: "optstuff: The per-minute limit cannot exceed the per-day limit\n",
    });

    type Listed = { publicKey: string; name: string; status: string; limits: { perMinute: number; perDay: number } };
    const listed = json<Listed[]>(await cli("keys", "list", ...blog, "--json"));
    expect(listed.find((k) => k.publicKey === created.publicKey)).toMatchObject({
      name: "production",
      status: "active",
      limits: { perMinute: 50, perDay: 5000 },
      policy: null,
    });
    expect(listed.map((k) => k.name).sort()).toEqual(["default", "production"]);
    expect(JSON.stringify(listed)).not.toContain("sk_");

    const rotated = await cli("keys", "rotate", ...blog, "--key", created.publicKey, "--grace-hours", "2");
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = credentials(rotated.stdout).OPTSTUFF_PUBLIC_KEY!;
    expect(rotated.stdout).toContain(`# ${created.publicKey} keeps working until `);
    const revoked = await cli("keys", "revoke", ...blog, "--key", next);
    expect(revoked).toMatchObject({ code: 0, stdout: `Revoked ${next} (production).\n` });
    const statuses = Object.fromEntries(
      json<Listed[]>(await cli("keys", "list", ...blog, "--json")).map((k) => [k.publicKey, k.status]),
    );
    expect(statuses).toMatchObject({ [created.publicKey]: "rotating", [next]: "revoked" });
    const again = await cli("keys", "rotate", ...blog, "--key", next);
    expect(again).toMatchObject({ code: 2, stderr: "optstuff: This key is revoked and cannot be rotated\n" });
    const unknown = await cli("keys", "revoke", ...blog, "--key", "pk_AAAAAAAAAAAAAAAAAAAAAA");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("No key pk_AAAAAAAAAAAAAAAAAAAAAA in this project");
  });

  it("purges a source or --all of a project, and refuses what is not a source URL", async () => {
    const one = await cli("purge", ...blog, "--source", "https://CDN.example.com/a/cat.jpg?v=2");
    expect(one.stdout).toContain("Purged https://cdn.example.com/a/cat.jpg; 0 stored result(s) deleted.");
    expect(one.stdout).toMatch(/# CDN: purge the cache tag optstuff-s-[A-Za-z0-9_-]{22}/);
    const all = await cli("purge", ...blog, "--all");
    expect(all.stdout).toContain("Purged every result of acme/blog");
    // Keyed by the master secret the CLI shares with the server: no project id in a CDN's logs.
    expect(all.stdout).toMatch(/# CDN: purge the cache tag optstuff-p-[A-Za-z0-9_-]{22}$/m);
    const bad = await cli("purge", ...blog, "--source", "ftp://x/y");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Not a source URL");
  });

  it("signs from the credentials file, and says where the file should be when it is missing", async () => {
    const missing = await cli("sign", "local/photo.jpg");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`No credentials file at ${path.join(dataDir, "quickstart.env")}`);
    const file = path.join(dataDir, "creds.env");
    expect((await cli("bootstrap", ...blog, "--credentials-file", file)).code).toBe(0);
    const signed = await cli("sign", "local/photo.jpg", "--operations", "w_400,f_auto", "--credentials-file", file);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(
      /^http:\/\/127\.0\.0\.1:4100\/api\/v1\/blog\/w_400%2Cf_auto\/local\/photo\.jpg\?key=pk_\S+&sig=\S+\n$/,
    );
  });

  it("on the first start (--if-empty, no data directory yet) makes the demo and writes its credentials", async () => {
    const fresh = path.join(mkdtempSync(path.join(tmpdir(), "optstuff-first-")), "data");
    const file = path.join(fresh, "quickstart.env");
    const first = await optstuff(
      fresh,
      ["bootstrap", "--team", "demo", "--project", "demo", "--if-empty", "--credentials-file", file],
      { DATABASE_URL: "" },
    );
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toBe(`Project "demo" is ready; its credentials are in ${file} (mode 0600).\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(credentials(readFileSync(file, "utf8"))).toMatchObject({ OPTSTUFF_PROJECT_SLUG: "demo" });
  });

  it("on a later start (--if-empty) makes no key, and the credentials file follows a new PORT", async () => {
    const file = path.join(dataDir, "quickstart.env");
    expect((await cli("bootstrap", "--team", "demo", "--project", "demo", "--credentials-file", file)).code).toBe(0);
    const before = readFileSync(file, "utf8");
    const keysBefore = json<unknown[]>(await cli("keys", "list", "--team", "demo", "--project", "demo", "--json"));
    const moved = await optstuff(
      dataDir,
      ["bootstrap", "--team", "demo", "--project", "demo", "--if-empty", "--credentials-file", file],
      {
        PORT: "4200",
      },
    );
    expect(moved).toMatchObject({
      code: 0,
      stdout: "",
      stderr: `${file}: OPTSTUFF_BASE_URL is now http://127.0.0.1:4200\n`,
    });
    expect(readFileSync(file, "utf8")).toBe(before.replace("http://127.0.0.1:4100", "http://127.0.0.1:4200"));
    expect(json<unknown[]>(await cli("keys", "list", "--team", "demo", "--project", "demo", "--json"))).toHaveLength(
      keysBefore.length,
    );
    const signed = await optstuff(dataDir, ["sign", "local/photo.jpg"], { PORT: "4200" });
    expect(signed.stdout).toMatch(/^http:\/\/127\.0\.0\.1:4200\/api\/v1\/demo\//);
  });

  it("doctor names each failing dependency in words and exits 1; an invalid environment is named first", async () => {
    const broken = await optstuff(dataDir, ["doctor", "--json"], {
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
      UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1",
      UPSTASH_REDIS_REST_TOKEN: "doctor-token",
    });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe("optstuff: 2 check(s) failed: database, redis\n");
    const findings = JSON.parse(broken.stdout) as Array<{ check: string; status: string; detail: string }>;
    expect(findings.filter((f) => f.status === "fail").map((f) => f.check)).toEqual(["database", "redis"]);
    expect(findings.find((f) => f.check === "database")!.detail).toMatch(/ECONNREFUSED|connect/);
    expect(broken.stdout).not.toContain("doctor-token");

    const invalid = await optstuff(dataDir, ["doctor"], { OPTSTUFF_REGISTRATION: "sometimes" });
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toMatch(
      /^CHECK +STATUS +DETAIL\nconfiguration +fail +Invalid environment: OPTSTUFF_REGISTRATION: /,
    );
  });

  it("refuses a credentials file that lacks a variable, naming it", async () => {
    const file = path.join(dataDir, "partial.env");
    writeFileSync(file, "OPTSTUFF_BASE_URL=http://127.0.0.1:4100\nOPTSTUFF_PROJECT_SLUG=blog\n");
    const signed = await cli("sign", "local/photo.jpg", "--credentials-file", file);
    expect(signed).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `optstuff: ${file} lacks OPTSTUFF_PUBLIC_KEY, OPTSTUFF_SECRET_KEY\n`,
    });
  });

  it("says that a key's limits live in the server's process when there is no shared Redis", async () => {
    const reset = await optstuff(dataDir, ["reset-limits", ...blog, "--key", "pk_AAAAAAAAAAAAAAAAAAAAAA"], {
      UPSTASH_REDIS_REST_URL: "",
      UPSTASH_REDIS_REST_TOKEN: "",
    });
    expect(reset.code).toBe(1);
    expect(reset.stderr).toContain(
      "Nothing was reset: without a shared Redis (REDIS_URL or UPSTASH_REDIS_REST_URL) the limits live in the server's process",
    );
  });

  it("refuses to reset the limits of a key the project does not have, before reaching Redis", async () => {
    const reset = await optstuff(dataDir, ["reset-limits", ...blog, "--key", "pk_AAAAAAAAAAAAAAAAAAAAAA"], {
      UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1",
      UPSTASH_REDIS_REST_TOKEN: "unreachable",
    });
    expect(reset).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "optstuff: No key pk_AAAAAAAAAAAAAAAAAAAAAA in this project (optstuff keys list shows them)\n",
    });
  });

  it("bootstraps again for a new key without touching the project's hosts", async () => {
    const before = json<string[]>(await cli("sources", ...blog, "--json"));
    expect(before).not.toEqual(["local"]);
    expect((await cli("bootstrap", ...blog)).code).toBe(0);
    expect(json<string[]>(await cli("sources", ...blog, "--json"))).toEqual(before);
  });

  it("makes no key when the credentials file cannot be written, and writes it 0600 when it can", async () => {
    type Listed = { publicKey: string };
    const count = async () => json<Listed[]>(await cli("keys", "list", ...blog, "--json")).length;
    let before = await count();
    // Under a file, where no folder can be made.
    const blocker = path.join(dataDir, "a-file");
    writeFileSync(blocker, "");
    const nowhere = await cli("bootstrap", ...blog, "--credentials-file", path.join(blocker, "sub", "x.env"));
    expect(nowhere).toMatchObject({ code: 2, stdout: "" });
    expect(nowhere.stderr).toContain(`${blocker} is not a writable folder`);
    expect(await count()).toBe(before);
    // A folder that is not there yet is made, as the first start's data directory is.
    const nested = path.join(dataDir, "made", "on", "demand.env");
    expect((await cli("bootstrap", ...blog, "--credentials-file", nested)).code).toBe(0);
    expect(statSync(nested).mode & 0o777).toBe(0o600);
    before += 1;
    expect(await count()).toBe(before);
    const existing = path.join(dataDir, "existing.env");
    writeFileSync(existing, "OLD=1\n", { mode: 0o644 });
    expect((await cli("bootstrap", ...blog, "--credentials-file", existing)).code).toBe(0);
    expect(statSync(existing).mode & 0o777).toBe(0o600);
    expect(readFileSync(existing, "utf8")).toMatch(/^OPTSTUFF_BASE_URL=.*\nOPTSTUFF_SECRET_KEY=sk_/s);
    expect(await count()).toBe(before + 1);
  });

  it("reads a credentials file written for a shell (export, quotes), and refuses a base URL that is not one", async () => {
    const file = path.join(dataDir, "shell.env");
    const vars = credentials((await cli("keys", "create", ...blog, "--name", "shell")).stdout);
    writeFileSync(
      file,
      Object.entries(vars)
        .map(([name, value]) => `export ${name}="${value}"`)
        .join("\n"),
    );
    const signed = await cli("sign", "local/photo.jpg", "--operations", "w_100", "--credentials-file", file);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout.trim()).toBe(
      buildSignedUrl({
        baseUrl: vars.OPTSTUFF_BASE_URL!,
        projectSlug: "blog",
        publicKey: vars.OPTSTUFF_PUBLIC_KEY!,
        secretKey: vars.OPTSTUFF_SECRET_KEY!,
        operations: "w_100",
        source: "local/photo.jpg",
      }),
    );
    const bad = await cli("sign", "local/photo.jpg", "--credentials-file", file, "--base-url", "foo");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Enter the address the image API answers at");
  });

  it("stops with a message naming the missing secrets in production", async () => {
    const failure = await optstuff(dataDir, ["bootstrap", ...blog], {
      NODE_ENV: "production",
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    });
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain("OPTSTUFF_KEY_ENCRYPTION_SECRET, BETTER_AUTH_SECRET");
  });
});

describe("optstuff within the quotas", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "optstuff-cli-quotas-"));
  // The embedded database, so that the test can fill it in process between two commands.
  const cli = (...args: string[]) => optstuff(dataDir, args, { DATABASE_URL: "" });
  const shop = ["--team", "full", "--project", "shop"];

  it("refuses a key or a project past its quota in one line, as the dashboard does, and makes room when a key is revoked", async () => {
    const first = json<{ publicKey: string }>(await cli("bootstrap", ...shop, "--sources", "local", "--json"));
    // What the dashboard or earlier commands would have made: 49 more projects in the team, 49 more keys
    // in the project (sealed under a throwaway master: they are only counted).
    const handle = await openDatabase({ kind: "pglite", dataDir, owner: { role: "the quota test" } });
    try {
      const team = (await findTeamBySlug(handle, "full"))!;
      const scope = { teamId: team.id, projectId: (await findProject(handle, team.id, "shop"))!.id };
      const filler = { db: handle.db, secretBox: createSecretBox("filler"), now: () => new Date(), audit: setupAudit };
      for (let i = 1; i < 50; i++) {
        await createProject({ db: handle.db, audit: setupAudit }, { teamId: team.id, name: `p${i}`, slug: `p${i}` });
        await createApiKey(filler, scope, { name: `k${i}`, expiresAt: null, createdBy: null });
      }
    } finally {
      await handle.close();
    }

    const key = await cli("keys", "create", ...shop, "--name", "extra");
    expect(key).toMatchObject({ code: 2, stdout: "" });
    expect(key.stderr).toMatch(/^optstuff: [^\n]*at most 50 active API keys[^\n]*\n$/);
    const project = await cli("bootstrap", "--team", "full", "--project", "another", "--sources", "local");
    expect(project).toMatchObject({ code: 2, stdout: "" });
    expect(project.stderr).toMatch(/^optstuff: [^\n]*at most 50 projects[^\n]*\n$/);

    expect((await cli("keys", "revoke", ...shop, "--key", first.publicKey)).code).toBe(0);
    const made = json<{ publicKey: string }>(await cli("keys", "create", ...shop, "--name", "extra", "--json"));
    expect(made.publicKey).toMatch(/^pk_/);
  }, 180_000);
});

/** The embedded default's server in a process of its own (tests/support/embedded-instance.ts). */
function startServer(dataDir: string): { child: ChildProcess; ready: Promise<string>; exited: Promise<Run> } {
  const serverEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    OPTSTUFF_DATA_DIR: dataDir,
    OPTSTUFF_SCHEDULER: "off",
  };
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/embedded-instance.ts"], {
    env: serverEnv as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Run>((resolve) =>
    child.once("exit", (code) => resolve({ code: code ?? -1, stdout, stderr })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const port = /READY (\d+)/.exec(stdout)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    void exited.then((result) => reject(new Error(`server exited with ${result.code}: ${result.stderr}`)));
  });
  return { child, ready, exited };
}

describe("optstuff beside a running embedded server", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "optstuff-cli-served-"));
  // Always the embedded database, on PostgreSQL runs too: it is the one with a single owner.
  const cli = (...args: string[]) => optstuff(dataDir, args, { DATABASE_URL: "" });
  const blog = ["--team", "acme", "--project", "blog"];
  let server: ReturnType<typeof startServer>;
  let firstKey: string;

  beforeAll(async () => {
    firstKey = json<{ publicKey: string }>(await cli("bootstrap", ...blog, "--sources", "local", "--json")).publicKey;
    server = startServer(dataDir);
    await server.ready;
  }, 90_000);
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await server.exited;
  });

  const served = async (key: { publicKey: string; secretKey: string }, width: number) =>
    fetch(
      buildSignedUrl({
        baseUrl: await server.ready,
        projectSlug: "blog",
        publicKey: key.publicKey,
        secretKey: key.secretKey,
        operations: `w_${width},f_png`,
        source: "local/logo.png",
      }),
    );
  /** The server's configuration cache holds an answer for up to a second (OPTSTUFF_CONFIG_CACHE_TTL_MS). */
  const eventually = async (key: { publicKey: string; secretKey: string }, width: number, status: number) => {
    const deadline = Date.now() + 5_000;
    let response = await served(key, width);
    while (response.status !== status && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      response = await served(key, width);
    }
    return response;
  };

  it("changes what the running server serves, through the server's database process, and shows without changing", async () => {
    const created = json<{ publicKey: string; secretKey: string }>(
      await cli("keys", "create", ...blog, "--name", "while-running", "--json"),
    );
    const response = await eventually(created, 64, 200);
    expect(response.status).toBe(200);
    expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).width).toBe(64);
    const before = readdirSync(dataDir).sort();
    // Several commands at once, beside the server's own queries: each gets its own answers.
    const [keys, sources, teams, projects] = await Promise.all([
      cli("keys", "list", ...blog, "--json"),
      cli("sources", ...blog, "--json"),
      cli("teams", "list", "--json"),
      cli("projects", "list", "--team", "acme", "--json"),
      served(created, 65),
    ]);
    expect(
      json<Array<{ name: string }>>(keys!)
        .map((k) => k.name)
        .sort(),
    ).toEqual(expect.arrayContaining(["while-running"]) as unknown as string[]);
    expect(json<string[]>(sources!)).toEqual(["local"]);
    expect(json<Array<{ slug: string }>>(teams!).map((t) => t.slug)).toContain("acme");
    expect(json<Array<{ slug: string }>>(projects!).map((p) => p.slug)).toEqual(["blog"]);
    expect(json<string[]>(await cli("sources", ...blog, "--json"))).toEqual(["local"]);
    expect(readdirSync(dataDir).sort()).toEqual(before);

    expect((await cli("keys", "revoke", ...blog, "--key", created.publicKey)).code).toBe(0);
    expect((await eventually(created, 66, 401)).status).toBe(401);
    const doctor = json<Array<{ check: string; status: string }>>(await cli("doctor", "--json"));
    expect(doctor.find((f) => f.check === "database")).toMatchObject({ status: "ok" });
  }, 120_000);

  it("keeps a second server off the same directory", async () => {
    const second = startServer(dataDir);
    second.ready.catch(() => undefined);
    const result = await second.exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `The embedded database in ${dataDir} is in use by the OptStuff server (pid ${server.child.pid}, since `,
    );
    expect(result.stderr).toContain("stop it first (one process at a time owns an embedded database)");
  });

  it("works once the server stopped, on what the server's database process wrote, and the next server serves the new key", async () => {
    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
    expect(readdirSync(dataDir)).not.toContain("pglite.sock");
    type Listed = { publicKey: string; name: string; status: string };
    const keys = json<Listed[]>(await cli("keys", "list", ...blog, "--json"));
    expect(keys.map((k) => [k.name, k.status]).sort()).toEqual([
      ["default", "active"],
      ["while-running", "revoked"],
    ]);
    expect(keys.find((k) => k.status === "active")?.publicKey).toBe(firstKey);
    expect(json<string[]>(await cli("sources", ...blog, "--json"))).toEqual(["local"]);
    const created = json<{ publicKey: string; secretKey: string }>(
      await cli("keys", "create", ...blog, "--name", "after-stop", "--json"),
    );
    server = startServer(dataDir);
    const baseUrl = await server.ready;
    const url = buildSignedUrl({
      baseUrl,
      projectSlug: "blog",
      publicKey: created.publicKey,
      secretKey: created.secretKey,
      operations: "w_64,f_png",
      source: "local/logo.png",
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).width).toBe(64);
  });
});

import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { vercelEnv } from "../../support/vercel-env";
import { parseEnv } from "@/env";
import { isProduction } from "@/server/config/platform";
import { loadSecrets, MissingSecretError } from "@/server/config/secrets";

const tempDir = () => mkdtempSync(path.join(tmpdir(), "optstuff-secrets-"));

describe("environment", () => {
  it("applies documented defaults and treats empty assignments as unset", () => {
    const e = parseEnv({ OPTSTUFF_MAX_SOURCE_BYTES: "", PORT: "" });
    expect(e.OPTSTUFF_MAX_SOURCE_BYTES).toBe(25 * 1024 * 1024);
    expect(e.PORT).toBe(3000);
    expect(e.OPTSTUFF_ALLOW_LOOPBACK_SOURCES).toBe(false);
    expect(e.DATABASE_URL).toBeUndefined();
  });

  it("names the variable that is invalid", () => {
    expect(() => parseEnv({ OPTSTUFF_MAX_REDIRECTS: "many" })).toThrow(/OPTSTUFF_MAX_REDIRECTS/);
  });

  it("is production on Vercel, or with NODE_ENV=production and a DATABASE_URL", () => {
    expect(isProduction(parseEnv(vercelEnv))).toBe(true);
    expect(isProduction(parseEnv({ NODE_ENV: "production", DATABASE_URL: "postgres://db/x" }))).toBe(true);
    expect(isProduction(parseEnv({ NODE_ENV: "production" }))).toBe(false);
    expect(isProduction(parseEnv({ DATABASE_URL: "postgres://db/x" }))).toBe(false);
  });
});

describe("secrets", () => {
  it("refuses to start in production without them, naming each missing variable", () => {
    const e = parseEnv({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://db/x",
      CRON_SECRET: "c",
      OPTSTUFF_DATA_DIR: tempDir(),
    });
    expect(() => loadSecrets(e)).toThrow(MissingSecretError);
    expect(() => loadSecrets(e)).toThrow("OPTSTUFF_KEY_ENCRYPTION_SECRET, BETTER_AUTH_SECRET");
  });

  it("starts in production without CRON_SECRET, with the cron routes closed rather than open", () => {
    const dir = tempDir();
    const e = parseEnv({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://db/x",
      OPTSTUFF_KEY_ENCRYPTION_SECRET: "k",
      BETTER_AUTH_SECRET: "a",
      OPTSTUFF_DATA_DIR: dir,
    });
    expect(loadSecrets(e).cron).toBeNull();
    expect(existsSync(path.join(dir, "secrets.json"))).toBe(false);
  });

  it("uses the given ones in production and writes nothing", () => {
    const dir = tempDir();
    const e = parseEnv({
      ...vercelEnv,
      OPTSTUFF_KEY_ENCRYPTION_SECRET: "k",
      BETTER_AUTH_SECRET: "a",
      CRON_SECRET: "c",
      OPTSTUFF_DATA_DIR: dir,
    });
    expect(loadSecrets(e)).toMatchObject({ keyEncryption: "k", auth: "a", cron: "c" });
    expect(() => statSync(path.join(dir, "secrets.json"))).toThrow();
  });

  it("generates them once on the embedded default, private to the owner, stable across restarts", () => {
    const dir = tempDir();
    const first = loadSecrets(parseEnv({ OPTSTUFF_DATA_DIR: dir }));
    const file = path.join(dir, "secrets.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.keyEncryption).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set([first.keyEncryption, first.auth, first.cron]).size).toBe(3);
    expect(loadSecrets(parseEnv({ OPTSTUFF_DATA_DIR: dir }))).toEqual(first);
    expect(JSON.parse(readFileSync(file, "utf8")).cron).toBe(first.cron);
  });

  it("lets a given variable override the generated value", () => {
    const dir = tempDir();
    loadSecrets(parseEnv({ OPTSTUFF_DATA_DIR: dir }));
    expect(loadSecrets(parseEnv({ OPTSTUFF_DATA_DIR: dir, CRON_SECRET: "mine" })).cron).toBe("mine");
  });
});

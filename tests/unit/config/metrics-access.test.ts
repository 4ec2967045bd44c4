import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { loadSecrets } from "@/server/config/secrets";
import { metricsAccessOf } from "@/server/metrics-access";
import { vercelEnv } from "../../support/vercel-env";

const production = {
  NODE_ENV: "production",
  DATABASE_URL: "postgres://db.example/optstuff",
  OPTSTUFF_KEY_ENCRYPTION_SECRET: "k".repeat(32),
  BETTER_AUTH_SECRET: "a".repeat(32),
};
const access = (env: Record<string, string>) => metricsAccessOf(parseEnv(env));
const dataDir = () => mkdtempSync(path.join(tmpdir(), "optstuff-metrics-access-"));

describe("who may read /api/metrics", () => {
  it("nobody in production until a token is set: the counters describe every tenant's traffic", () => {
    expect(access(production)).toBe("off");
    expect(access({ ...vercelEnv, OPTSTUFF_METRICS_TOKEN: "off" })).toBe("off");
  });

  it("the token's holder once one is set, anywhere", () => {
    const dir = dataDir();
    expect(access({ ...production, OPTSTUFF_METRICS_TOKEN: "scrape-me" })).toEqual({ token: "scrape-me" });
    expect(access({ OPTSTUFF_DATA_DIR: dir, OPTSTUFF_METRICS_TOKEN: "scrape-me" })).toEqual({ token: "scrape-me" });
    expect(access({ OPTSTUFF_DATA_DIR: dir, OPTSTUFF_METRICS_TOKEN: "off" })).toBe("off");
    expect(existsSync(path.join(dir, "metrics-token"))).toBe(false);
  });

  it("on the embedded default, the holder of a token generated at first start beside the other secrets: a proxy in front exposes the loopback", () => {
    const dir = dataDir();
    const first = access({ OPTSTUFF_DATA_DIR: dir });
    expect(first).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const file = path.join(dir, "metrics-token");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe((first as { token: string }).token);
    // Kept across restarts, and not one of the other secrets.
    expect(access({ OPTSTUFF_DATA_DIR: dir })).toEqual(first);
    // The server generates the other secrets at the same start.
    loadSecrets(parseEnv({ OPTSTUFF_DATA_DIR: dir }));
    const secrets = JSON.parse(readFileSync(path.join(dir, "secrets.json"), "utf8")) as Record<string, string>;
    expect(Object.values(secrets)).not.toContain((first as { token: string }).token);
  });

  it("never anyone who asks, whatever the deployment", () => {
    for (const env of [{}, production, vercelEnv, { ...production, NODE_ENV: "development" }])
      expect(access({ OPTSTUFF_DATA_DIR: dataDir(), ...env })).not.toBe("open");
  });
});

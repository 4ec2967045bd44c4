import { describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { serviceOptionsFromEnv } from "@/server/service-options";
import { vercelEnv } from "../../support/vercel-env";

const production = {
  NODE_ENV: "production",
  DATABASE_URL: "postgres://db.example/optstuff",
  OPTSTUFF_KEY_ENCRYPTION_SECRET: "k".repeat(32),
  BETTER_AUTH_SECRET: "a".repeat(32),
};
const access = (env: Record<string, string>) => serviceOptionsFromEnv(parseEnv(env)).metrics;

describe("who may read /api/metrics", () => {
  it("nobody in production until a token is set: the counters describe every tenant's traffic", () => {
    expect(access(production)).toBe("off");
    expect(access({ ...vercelEnv, OPTSTUFF_METRICS_TOKEN: "off" })).toBe("off");
  });

  it("the token's holder once one is set, anywhere", () => {
    expect(access({ ...production, OPTSTUFF_METRICS_TOKEN: "scrape-me" })).toEqual({ token: "scrape-me" });
    expect(access({ OPTSTUFF_METRICS_TOKEN: "scrape-me" })).toEqual({ token: "scrape-me" });
  });

  it("anyone on the embedded default, which listens on loopback", () => {
    expect(access({ OPTSTUFF_DATA_DIR: "/tmp/optstuff-metrics-access" })).toBe("open");
  });
});

import { describe, expect, it } from "vitest";
import { EnvironmentError, parseEnv } from "@/env";
import { publicBaseUrl } from "@/server/config/platform";
import { trustedOriginsOf } from "@/server/api/origins";
import { redisOf } from "@/server/coordination/settings";
import { databasePooled } from "@/server/db/settings";
import { databaseTargetOf, serverDatabaseTargetOf } from "@/server/db/target";
import { responseMaxBytesOf } from "@/server/delivery/settings";
import { fontConfigOf } from "@/server/image/settings";
import { metricsAccessOf } from "@/server/metrics-access";
import { vercelEnv } from "../../support/vercel-env";

/** The variables a refusal names, or [] when the environment is accepted. */
function refused(env: Record<string, string | undefined>): string[] {
  try {
    parseEnv(env);
    return [];
  } catch (error) {
    if (error instanceof EnvironmentError) return error.variables;
    throw error;
  }
}

const without = (name: string) => ({ ...vercelEnv, [name]: undefined });

describe("a deployment on Vercel", () => {
  it("starts with what docs/self-hosting.md lists", () => {
    expect(refused(vercelEnv)).toEqual([]);
  });

  it.each([
    ["DATABASE_URL", /embedded database.*PostgreSQL URL/],
    ["UPSTASH_REDIS_REST_URL", /own rate limits and caches.*KV_REST_API_URL/],
    ["CRON_SECRET", /Vercel Cron authenticates with it/],
    ["OPTSTUFF_METRICS_TOKEN", /or `off`/],
  ])("refuses to start without %s, saying why and what to set", (name, why) => {
    const env =
      name === "UPSTASH_REDIS_REST_URL" ? { ...without(name), UPSTASH_REDIS_REST_TOKEN: undefined } : without(name);
    expect(refused(env)).toEqual([name]);
    expect(() => parseEnv(env)).toThrow(why);
  });

  it.each([
    ["OPTSTUFF_TRANSFORM_ISOLATION", "process", /frozen between requests.*unset it \(`auto`\) or set `none`/],
    ["OPTSTUFF_RESULT_STORE", "files", /read-only.*OPTSTUFF_RESULT_STORE_S3_BUCKET.*or set `none`/],
    ["OPTSTUFF_SCHEDULER", "on", /Vercel Cron calls.*unset it \(`auto`\) or set `off`/],
  ])("refuses %s=%s, which cannot work in a function, saying why and what to set", (name, value, why) => {
    const env = { ...vercelEnv, [name]: value };
    expect(refused(env)).toEqual([name]);
    expect(() => parseEnv(env)).toThrow(why);
    // A server of one's own takes it.
    expect(refused({ ...env, VERCEL: undefined })).toEqual([]);
  });

  it("starts with what each of those settings can be there", () => {
    const inFunction = {
      OPTSTUFF_TRANSFORM_ISOLATION: "none",
      OPTSTUFF_RESULT_STORE: "none",
      OPTSTUFF_SCHEDULER: "off",
    };
    expect(refused({ ...vercelEnv, ...inFunction })).toEqual([]);
    const bucket = {
      OPTSTUFF_RESULT_STORE: "s3",
      OPTSTUFF_RESULT_STORE_S3_BUCKET: "results",
      OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID: "id",
      OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY: "secret",
    };
    expect(refused({ ...vercelEnv, ...bucket })).toEqual([]);
  });

  it("reads Redis from the names Vercel's marketplace integration sets", () => {
    const marketplace = {
      ...vercelEnv,
      UPSTASH_REDIS_REST_URL: undefined,
      UPSTASH_REDIS_REST_TOKEN: undefined,
      KV_REST_API_URL: "https://marketplace.upstash.example",
      KV_REST_API_TOKEN: "marketplace-token",
    };
    expect(refused(marketplace)).toEqual([]);
    expect(redisOf(parseEnv(marketplace))).toEqual({
      transport: "rest",
      url: "https://marketplace.upstash.example",
      token: "marketplace-token",
    });
    // The integration also names the same database over TCP: REST is read, and nothing is refused.
    const withTcp = {
      ...marketplace,
      REDIS_URL: "rediss://default:marketplace-password@marketplace.upstash.example:6379",
    };
    expect(refused(withTcp)).toEqual([]);
    expect(redisOf(parseEnv(withTcp))).toMatchObject({ transport: "rest", url: "https://marketplace.upstash.example" });
    // Half of the pair is named, as with the UPSTASH_ one.
    expect(refused({ ...marketplace, KV_REST_API_TOKEN: undefined })).toContain("KV_REST_API_TOKEN");
  });

  it("refuses an S3 result store without its own key pair, which would sign with Vercel's AWS variables", () => {
    const s3 = { ...vercelEnv, OPTSTUFF_RESULT_STORE_S3_BUCKET: "results", AWS_ACCESS_KEY_ID: "ASIA-vercel" };
    expect(refused(s3)).toEqual(["OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID"]);
    const keyed = {
      ...s3,
      OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID: "id",
      OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY: "secret",
    };
    expect(refused(keyed)).toEqual([]);
  });

  it("turns /api/metrics off when told `off`", () => {
    expect(metricsAccessOf(parseEnv({ ...vercelEnv, OPTSTUFF_METRICS_TOKEN: "off" }))).toBe("off");
  });

  it("caps image bodies under Vercel's 4.5 MB response limit, and nowhere else unless told", () => {
    expect(responseMaxBytesOf(parseEnv(vercelEnv))).toBe(4_400_000);
    const selfHosted = { ...vercelEnv, VERCEL: undefined };
    expect(responseMaxBytesOf(parseEnv(selfHosted))).toBe(0);
    const told = { ...selfHosted, OPTSTUFF_RESPONSE_MAX_BYTES: "1000000" };
    expect(responseMaxBytesOf(parseEnv(told))).toBe(1_000_000);
    expect(refused({ OPTSTUFF_RESPONSE_MAX_BYTES: "-1" })).toEqual(["OPTSTUFF_RESPONSE_MAX_BYTES"]);
  });

  it("draws SVG text with the bundled fonts unless told to use the machine's", () => {
    expect(fontConfigOf(parseEnv(vercelEnv))).toMatch(/\/assets\/fonts\.conf$/);
    expect(fontConfigOf(parseEnv({ ...vercelEnv, OPTSTUFF_SVG_FONTS: "system" }))).toBeNull();
  });

  it("signs a preview in at its own hosts, and production at its domain", () => {
    const preview = {
      ...vercelEnv,
      VERCEL_ENV: "preview",
      VERCEL_PROJECT_PRODUCTION_URL: "img.example.com",
      VERCEL_URL: "optstuff-abc123-team.vercel.app",
      VERCEL_BRANCH_URL: "optstuff-git-feature-team.vercel.app",
    };
    const options = parseEnv(preview);
    expect(publicBaseUrl(options)).toBe("https://optstuff-git-feature-team.vercel.app");
    expect(trustedOriginsOf(options)).toEqual([
      "https://optstuff-git-feature-team.vercel.app",
      "https://optstuff-abc123-team.vercel.app",
    ]);
    const production = parseEnv({ ...preview, VERCEL_ENV: "production" });
    expect(publicBaseUrl(production)).toBe("https://img.example.com");
    expect(trustedOriginsOf(production)).toEqual([]);
    // An origin set on purpose wins, previews included.
    const fixed = parseEnv({ ...preview, OPTSTUFF_PUBLIC_BASE_URL: "https://img.example.com" });
    expect(publicBaseUrl(fixed)).toBe("https://img.example.com");
  });

  it("asks nothing of a self-hosted or embedded instance", () => {
    expect(refused({})).toEqual([]);
    expect(refused({ NODE_ENV: "production", DATABASE_URL: "postgres://db/x" })).toEqual([]);
  });
});

describe("a DATABASE_URL through a pooler", () => {
  const neon = "postgres://u:p@ep-cool-name-123-pooler.eu-central-1.aws.neon.tech/db";
  const production = {
    NODE_ENV: "production",
    OPTSTUFF_KEY_ENCRYPTION_SECRET: "k".repeat(32),
    BETTER_AUTH_SECRET: "a".repeat(32),
  };

  it("is recognised by Neon's -pooler host, on Vercel, or when told", () => {
    expect(databasePooled(parseEnv({ DATABASE_URL: neon, OPTSTUFF_MIGRATE_AT_START: "off" }))).toBe(true);
    expect(databasePooled(parseEnv({ DATABASE_URL: "postgres://db.example/x" }))).toBe(false);
    expect(databasePooled(parseEnv(vercelEnv))).toBe(true);
    expect(databasePooled(parseEnv({ DATABASE_URL: neon, OPTSTUFF_DATABASE_POOLED: "off" }))).toBe(false);
  });

  it("cannot carry migrations at start alone: the direct URL is asked for, by name", () => {
    expect(refused({ ...production, DATABASE_URL: neon })).toEqual(["DATABASE_URL_UNPOOLED"]);
    expect(() => parseEnv({ ...production, DATABASE_URL: neon })).toThrow(
      /OPTSTUFF_MIGRATE_AT_START=off.*optstuff migrate/,
    );
    expect(
      refused({
        ...production,
        DATABASE_URL: neon,
        DATABASE_URL_UNPOOLED: "postgres://u:p@ep-cool-name-123.neon.tech/db",
      }),
    ).toEqual([]);
    expect(refused({ ...production, DATABASE_URL: neon, OPTSTUFF_MIGRATE_AT_START: "off" })).toEqual([]);
  });

  it("is opened without migrating on Vercel, refusing a database that is behind; the command line takes the direct URL", () => {
    const onVercel = serverDatabaseTargetOf(parseEnv({ ...vercelEnv, DATABASE_URL_UNPOOLED: "postgres://direct/db" }));
    expect(onVercel).toMatchObject({
      kind: "postgres",
      url: vercelEnv.DATABASE_URL,
      pooled: true,
      migrate: false,
      requireCurrent: true,
    });
    expect(databaseTargetOf(parseEnv({ ...vercelEnv, DATABASE_URL_UNPOOLED: "postgres://direct/db" }))).toEqual({
      kind: "postgres",
      url: "postgres://direct/db",
    });
    const selfHosted = serverDatabaseTargetOf(parseEnv({ ...production, DATABASE_URL: "postgres://db.example/x" }));
    expect(selfHosted).toMatchObject({ pooled: false, migrate: true, requireCurrent: false });
  });
});

import { describe, expect, it, vi } from "vitest";
import { addressInEnvironment, parseEnv } from "@/env";
import { publicBaseUrl } from "@/server/config/platform";

describe("public base URL", () => {
  it("takes the configured origin (without a trailing slash), else Vercel's production domain, else loopback at PORT", () => {
    expect(
      publicBaseUrl(
        parseEnv({
          OPTSTUFF_PUBLIC_BASE_URL: "https://img.example.com/",
          VERCEL_PROJECT_PRODUCTION_URL: "x.vercel.app",
        }),
      ),
    ).toBe("https://img.example.com");
    expect(publicBaseUrl(parseEnv({ VERCEL_PROJECT_PRODUCTION_URL: "shop-images.vercel.app" }))).toBe(
      "https://shop-images.vercel.app",
    );
    expect(publicBaseUrl(parseEnv({ PORT: "4100" }))).toBe("http://127.0.0.1:4100");
  });

  it("names the server by HOST: a wildcard as loopback, an IPv6 address in brackets", () => {
    const at = (HOST: string) => publicBaseUrl(parseEnv({ HOST, PORT: "4820" }));
    expect(at("192.168.1.5")).toBe("http://192.168.1.5:4820");
    expect(at("localhost")).toBe("http://localhost:4820");
    expect(at("0.0.0.0")).toBe("http://127.0.0.1:4820");
    expect(at("::")).toBe("http://127.0.0.1:4820");
    expect(at("::1")).toBe("http://[::1]:4820");
  });

  it("tells whether an environment names the address, so a command knows to use its own", () => {
    expect(addressInEnvironment({ PATH: "/bin", OPTSTUFF_DATA_DIR: ".data" })).toBe(false);
    expect(addressInEnvironment({ PORT: "" })).toBe(false);
    for (const name of ["PORT", "HOST", "OPTSTUFF_PUBLIC_BASE_URL", "VERCEL_PROJECT_PRODUCTION_URL"])
      expect(addressInEnvironment({ [name]: "x" }), name).toBe(true);
  });

  it("treats empty values as unset, as copied from .env.example", () => {
    expect(publicBaseUrl(parseEnv({ OPTSTUFF_PUBLIC_BASE_URL: "", SMTP_URL: "" }))).toBe("http://127.0.0.1:3000");
    expect(parseEnv({ SMTP_URL: "" }).SMTP_URL).toBeUndefined();
  });
});

describe("transform settings", () => {
  it("defaults to two transforms per core and WebP effort 4, and refuses an effort outside 0–6", async () => {
    const { availableParallelism } = await import("node:os");
    const defaults = parseEnv({});
    expect(defaults.OPTSTUFF_TRANSFORM_CONCURRENCY).toBe(2 * availableParallelism());
    expect(defaults.OPTSTUFF_WEBP_EFFORT).toBe(4);
    expect(parseEnv({ OPTSTUFF_WEBP_EFFORT: "2" }).OPTSTUFF_WEBP_EFFORT).toBe(2);
    expect(() => parseEnv({ OPTSTUFF_WEBP_EFFORT: "7" })).toThrow(/OPTSTUFF_WEBP_EFFORT/);
  });
});

describe("environment errors", () => {
  it("refuses the Upstash URL without its token, and the token without the URL, naming the missing one", async () => {
    const { EnvironmentError } = await import("@/env");
    const urlOnly = () => parseEnv({ UPSTASH_REDIS_REST_URL: "https://eu1-example.upstash.io" });
    expect(urlOnly).toThrow(EnvironmentError);
    expect(urlOnly).toThrow(/UPSTASH_REDIS_REST_TOKEN/);
    const tokenOnly = () => parseEnv({ UPSTASH_REDIS_REST_TOKEN: "AXyzTokenValueThatMustNotBeEchoed" });
    expect(tokenOnly).toThrow(/UPSTASH_REDIS_REST_URL/);
    expect(tokenOnly).not.toThrow(/AXyzTokenValueThatMustNotBeEchoed/);
    // Both, or neither (an empty assignment counts as unset).
    expect(
      parseEnv({ UPSTASH_REDIS_REST_URL: "https://eu1-example.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t" })
        .UPSTASH_REDIS_REST_TOKEN,
    ).toBe("t");
    expect(
      parseEnv({ UPSTASH_REDIS_REST_URL: "", UPSTASH_REDIS_REST_TOKEN: "" }).UPSTASH_REDIS_REST_URL,
    ).toBeUndefined();
  });

  it("takes Redis over TCP from REDIS_URL, refuses another scheme without echoing it, and refuses two Redis at once", async () => {
    const { EnvironmentError } = await import("@/env");
    const { redisOf } = await import("@/server/coordination/settings");
    const url = "rediss://default:s3cretPassw0rd@redis.internal:6380/0";
    expect(redisOf(parseEnv({ REDIS_URL: url }))).toEqual({ transport: "tcp", url });
    for (const wrong of ["http://redis.internal:6379", "redis.internal:6379", "not a url"]) {
      const parse = () => parseEnv({ REDIS_URL: wrong });
      expect(parse).toThrow(EnvironmentError);
      expect(parse).toThrow(/REDIS_URL.*not a redis:\/\/ or rediss:\/\/ URL/);
    }
    const secretBearing = () => parseEnv({ REDIS_URL: "https://default:s3cretPassw0rd@redis.internal" });
    expect(secretBearing).not.toThrow(/s3cretPassw0rd/);
    const both = () =>
      parseEnv({
        REDIS_URL: url,
        UPSTASH_REDIS_REST_URL: "https://eu1-example.upstash.io",
        UPSTASH_REDIS_REST_TOKEN: "t",
      });
    expect(both).toThrow(/REDIS_URL.*not both/);
    expect(both).not.toThrow(/s3cretPassw0rd/);
  });

  it("throws an EnvironmentError carrying each variable and its problem", async () => {
    const { EnvironmentError } = await import("@/env");
    let thrown: unknown;
    try {
      parseEnv({ OPTSTUFF_WEBP_EFFORT: "7", UPSTASH_REDIS_REST_URL: "https://eu1-example.upstash.io" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EnvironmentError);
    const error = thrown as InstanceType<typeof EnvironmentError>;
    expect(error.variables).toEqual(["OPTSTUFF_WEBP_EFFORT", "UPSTASH_REDIS_REST_TOKEN"]);
    expect(error.problems.map((p) => p.variable)).toEqual(error.variables);
    expect(error.problems[1]!.problem).toMatch(/UPSTASH_REDIS_REST_URL/);
    expect(error.message).toMatch(/^Invalid environment:\n {2}OPTSTUFF_WEBP_EFFORT: /);
  });

  it("is recognised with instanceof across two copies of the module (Next bundles instrumentation apart from routes)", async () => {
    vi.resetModules();
    const first = await import("@/env");
    vi.resetModules();
    const second = await import("@/env");
    expect(first.EnvironmentError).not.toBe(second.EnvironmentError);
    let thrown: unknown;
    try {
      first.parseEnv({ PORT: "none" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(second.EnvironmentError);
    expect(new Error("Invalid environment: forged")).not.toBeInstanceOf(second.EnvironmentError);
  });
});

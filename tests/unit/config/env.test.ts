import { describe, expect, it } from "vitest";
import { parseEnv, publicBaseUrl } from "@/env";

describe("public base URL", () => {
  it("takes the configured origin (without a trailing slash), else Vercel's production domain, else loopback at PORT", () => {
    expect(publicBaseUrl(parseEnv({ OPTSTUFF_PUBLIC_BASE_URL: "https://img.example.com/", VERCEL_PROJECT_PRODUCTION_URL: "x.vercel.app" }))).toBe("https://img.example.com");
    expect(publicBaseUrl(parseEnv({ VERCEL_PROJECT_PRODUCTION_URL: "shop-images.vercel.app" }))).toBe("https://shop-images.vercel.app");
    expect(publicBaseUrl(parseEnv({ PORT: "4100" }))).toBe("http://127.0.0.1:4100");
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

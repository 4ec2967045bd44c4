import { describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { clientAddress } from "@/server/ratelimit/client-address";
import { serviceOptionsFromEnv } from "@/server/service-options";

const production = {
  DATABASE_URL: "postgres://db.example/optstuff",
  OPTSTUFF_KEY_ENCRYPTION_SECRET: "k".repeat(32),
  BETTER_AUTH_SECRET: "a".repeat(32),
};
const hops = (env: Record<string, string>) => serviceOptionsFromEnv(parseEnv(env)).trustedProxyHops;

describe("which proxies the client address skips", () => {
  it("trusts none by default: the socket's address counts", () => {
    expect(hops(production)).toBe(0);
  });

  it("counts Vercel's edge as a proxy, which writes the client's address into X-Forwarded-For", () => {
    const vercel = hops({ ...production, VERCEL: "1" });
    expect(vercel).toBe(1);
    expect(clientAddress(new Headers({ "x-forwarded-for": "203.0.113.5" }), vercel)).toBe("203.0.113.5");
  });

  it("takes the configured number of proxies, on Vercel too", () => {
    expect(hops({ ...production, OPTSTUFF_TRUSTED_PROXY_HOPS: "2" })).toBe(2);
    expect(hops({ ...production, VERCEL: "1", OPTSTUFF_TRUSTED_PROXY_HOPS: "2" })).toBe(2);
  });
});

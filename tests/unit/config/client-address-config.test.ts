import { describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { clientAddress } from "@/server/ratelimit/client-address";
import { clientAddressesOf } from "@/server/ratelimit/settings";
import { vercelEnv } from "../../support/vercel-env";

const production = {
  DATABASE_URL: "postgres://db.example/optstuff",
  OPTSTUFF_KEY_ENCRYPTION_SECRET: "k".repeat(32),
  BETTER_AUTH_SECRET: "a".repeat(32),
};
const policy = (env: Record<string, string>) => clientAddressesOf(parseEnv(env));

describe("which proxies the client address skips", () => {
  it("trusts none by default: the socket's address counts", () => {
    expect(policy(production)).toEqual({ trustedHops: 0, vercel: false, cdn: null });
  });

  it("takes Vercel's edge at its word, and nothing a client sends beside it", () => {
    const vercel = policy(vercelEnv);
    expect(vercel).toMatchObject({ vercel: true, cdn: null });
    expect(
      clientAddress(
        new Headers({ "x-forwarded-for": "203.0.113.5", "x-optstuff-peer-address": "198.51.100.1" }),
        vercel,
      ),
    ).toBe("203.0.113.5");
  });

  it("takes the configured number of proxies when self-hosted, and refuses more than one on Vercel, naming the CDN settings", () => {
    expect(policy({ ...production, OPTSTUFF_TRUSTED_PROXY_HOPS: "2" }).trustedHops).toBe(2);
    expect(policy({ ...vercelEnv, OPTSTUFF_TRUSTED_PROXY_HOPS: "1" }).vercel).toBe(true);
    expect(() => policy({ ...vercelEnv, OPTSTUFF_TRUSTED_PROXY_HOPS: "2" })).toThrow(
      /OPTSTUFF_TRUSTED_PROXY_HOPS: has no effect on Vercel.*OPTSTUFF_CDN_ADDRESS_HEADER and OPTSTUFF_CDN_SECRET/,
    );
  });

  it("believes a CDN's header with its secret; both are needed, the secret long, the header a name", () => {
    const secret = "s".repeat(32);
    expect(
      policy({ ...vercelEnv, OPTSTUFF_CDN_ADDRESS_HEADER: "CF-Connecting-IP", OPTSTUFF_CDN_SECRET: secret }).cdn,
    ).toEqual({
      addressHeader: "cf-connecting-ip",
      secret,
    });
    expect(() => policy({ ...production, OPTSTUFF_CDN_ADDRESS_HEADER: "cf-connecting-ip" })).toThrow(
      /OPTSTUFF_CDN_SECRET: missing/,
    );
    expect(() => policy({ ...production, OPTSTUFF_CDN_ADDRESS_HEADER: "a b", OPTSTUFF_CDN_SECRET: secret })).toThrow(
      /OPTSTUFF_CDN_ADDRESS_HEADER: a header name/,
    );
    expect(() =>
      policy({ ...production, OPTSTUFF_CDN_ADDRESS_HEADER: "cf-connecting-ip", OPTSTUFF_CDN_SECRET: "short" }),
    ).toThrow(/OPTSTUFF_CDN_SECRET: at least 32 characters/);
  });
});

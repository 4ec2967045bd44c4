import { describe, expect, it } from "vitest";
import { matchesIfNoneMatch } from "@/server/delivery/answer-plan";
import { lifetimeSeconds } from "@/server/delivery/authorize";
import { variantKey } from "@/server/delivery/result-keys";
import { cacheControl, successHeaders } from "@/server/delivery/success-headers";
import { parseOperations } from "@/server/image";

const source = { kind: "remote" as const, url: new URL("https://cdn.example.com/a.jpg") };
const base = {
  etag: '"e"',
  maxSeconds: 31_536_000,
  immutable: true,
  requestId: "r",
  serverTiming: "total;dur=1",
  tags: ["optstuff-p-1", "optstuff-s-2"],
};

describe("cache headers", () => {
  it("is immutable for a year without exp and bounded by exp otherwise", () => {
    expect(lifetimeSeconds(undefined, 0)).toBe(31_536_000);
    expect(lifetimeSeconds(1_000_600, 1_000_000_000)).toBe(600);
    expect(lifetimeSeconds(999_999, 1_000_000_000)).toBe(0);
    expect(lifetimeSeconds(9_999_999_999, 0)).toBe(31_536_000);
    expect(cacheControl(31_536_000, true)).toBe("public, max-age=31536000, s-maxage=31536000, immutable");
    expect(cacheControl(600, false)).toBe("public, max-age=600, s-maxage=600");
  });

  it("states the same lifetime for CDNs in CDN-Cache-Control, which has no s-maxage", () => {
    const headers = (maxSeconds: number, immutable: boolean) =>
      successHeaders({ ...base, maxSeconds, immutable, negotiated: false, refererRestricted: false });
    expect(headers(31_536_000, true).get("cdn-cache-control")).toBe("public, max-age=31536000");
    expect(headers(600, false).get("cdn-cache-control")).toBe("public, max-age=600");
    expect(headers(0, false).get("cdn-cache-control")).toBe("public, max-age=0");
  });

  it("says Vary: Accept only for negotiated formats, adds Referer when restricted, CSP only on SVG", () => {
    const plain = successHeaders({ ...base, contentType: "image/webp", negotiated: false, refererRestricted: false });
    expect(plain.get("vary")).toBeNull();
    expect(plain.get("cache-tag")).toBe("optstuff-p-1,optstuff-s-2");
    expect(plain.get("surrogate-key")).toBe("optstuff-p-1 optstuff-s-2");
    expect(plain.get("vercel-cache-tag")).toBe("optstuff-p-1,optstuff-s-2");
    expect(plain.get("content-security-policy")).toBeNull();
    expect(plain.get("x-content-type-options")).toBe("nosniff");
    const both = successHeaders({ ...base, contentType: "image/avif", negotiated: true, refererRestricted: true });
    expect(both.get("vary")).toBe("Accept, Referer");
    const svg = successHeaders({
      ...base,
      contentType: "image/svg+xml",
      svg: true,
      negotiated: false,
      refererRestricted: false,
    });
    expect(svg.get("content-security-policy")).toBe("default-src 'none'");
  });
});

describe("variant keys and ETags", () => {
  it("ignore operation order but not values, source or negotiated Accept", () => {
    const a = variantKey(parseOperations("w_800,f_webp"), source, null);
    expect(variantKey(parseOperations("f_webp,w_800"), source, null)).toBe(a);
    expect(variantKey(parseOperations("w_801,f_webp"), source, null)).not.toBe(a);
    expect(
      variantKey(
        parseOperations("w_800,f_webp"),
        { kind: "remote", url: new URL("https://cdn.example.com/b.jpg") },
        null,
      ),
    ).not.toBe(a);
    // Accept only matters when the format is negotiated.
    expect(variantKey(parseOperations("w_800,f_webp"), source, "image/avif")).toBe(a);
    const auto = parseOperations("w_800,f_auto");
    expect(variantKey(auto, source, "image/avif,image/webp")).not.toBe(variantKey(auto, source, "image/webp"));
    const best = parseOperations("w_800,f_best");
    expect(variantKey(best, source, "image/avif,image/webp")).not.toBe(variantKey(best, source, "image/webp"));
    expect(variantKey(best, source, "image/webp")).not.toBe(variantKey(best, source, "image/png"));
    expect(variantKey(best, source, "image/webp")).toBe(variantKey(best, source, "image/webp,image/*"));
  });

  it("matches If-None-Match lists, weak tags and *", () => {
    const etag = '"abc"';
    expect(matchesIfNoneMatch('"abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch('W/"abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch('"x", "abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch("*", etag)).toBe(true);
    expect(matchesIfNoneMatch('"abcd"', etag)).toBe(false);
    expect(matchesIfNoneMatch(null, etag)).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { matchesIfNoneMatch, variantKey } from "@/server/delivery/cache-key";
import { cacheControl, cdnCacheControl, successHeaders } from "@/server/delivery/success-headers";
import { parseOperations } from "@/server/image";

const source = { kind: "remote" as const, url: new URL("https://cdn.example.com/a.jpg") };

describe("cache headers", () => {
  it("is immutable for a year without exp and bounded by exp otherwise", () => {
    expect(cacheControl(undefined, 0)).toBe("public, max-age=31536000, s-maxage=31536000, immutable");
    expect(cacheControl(1_000_600, 1_000_000_000)).toBe("public, max-age=600, s-maxage=600");
    expect(cacheControl(999_999, 1_000_000_000)).toBe("public, max-age=0, s-maxage=0");
    expect(cacheControl(9_999_999_999, 0)).toContain("max-age=31536000");
  });

  it("states the same lifetime for CDNs in CDN-Cache-Control, which has no s-maxage", () => {
    expect(cdnCacheControl(undefined, 0)).toBe("public, max-age=31536000");
    expect(cdnCacheControl(1_000_600, 1_000_000_000)).toBe("public, max-age=600");
    expect(cdnCacheControl(999_999, 1_000_000_000)).toBe("public, max-age=0");
  });

  it("says Vary: Accept only for negotiated formats, adds Referer when restricted, CSP only on SVG", () => {
    const base = {
      etag: '"e"',
      exp: undefined,
      nowMs: 0,
      requestId: "r",
      serverTiming: "total;dur=1",
      tags: ["optstuff-p-1", "optstuff-s-2"],
    };
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

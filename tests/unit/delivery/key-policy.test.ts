import { describe, expect, it } from "vitest";
import type { KeyPolicy } from "@/lib/schemas/key-policy";
import { CLOCK_SKEW_SECONDS, enforceKeyPolicy } from "@/server/delivery/key-policy";
import { parseOperations } from "@/server/image";

const NOW = Date.UTC(2026, 10, 30, 12);
const open: KeyPolicy = { operations: null, presets: null, maxExpirySeconds: null, referers: [] };
const parts = (segment: string, exp?: number) => ({
  operationsSegment: segment,
  operations: parseOperations(segment),
  exp,
});
const check = (policy: Partial<KeyPolicy> | null, segment: string, exp?: number, referer: string | null = null) =>
  enforceKeyPolicy({ policy: policy && { ...open, ...policy } }, parts(segment, exp), referer, NOW);
const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string; status: number };
  }
  throw new Error("expected a refusal");
};

describe("enforceKeyPolicy", () => {
  it("lets anything the project allows through a key without a policy, or with one that restricts nothing", () => {
    expect(() => check(null, "w_800,f_webp,blur_5")).not.toThrow();
    expect(() => check({}, "w_800,f_webp,blur_5")).not.toThrow();
  });

  it("refuses a token its operations list does not name, and says which and what it allows", () => {
    expect(() => check({ operations: ["w", "f"] }, "w_800,f_webp,w_400")).not.toThrow();
    expect(() => check({ operations: ["w"] }, "_")).not.toThrow();
    const refused = refusal(() => check({ operations: ["w", "f"] }, "w_800,blur_5,sharpen_1,blur_9"));
    expect(refused).toMatchObject({ code: "KEY_POLICY_REFUSED", status: 403 });
    expect(refused.message).toBe("This key may not sign blur, sharpen: its policy allows only w, f");
    expect(refusal(() => check({ operations: [] }, "w_10")).message).toBe(
      "This key may not sign w: its policy allows no operations",
    );
  });

  it("makes a key presets-only with operations [pr], and holds it to its presets", () => {
    const presetsOnly = { operations: ["pr"], presets: ["hero", "thumb"] };
    expect(() => check(presetsOnly, "pr_hero")).not.toThrow();
    // The original, whole, is not a preset.
    expect(refusal(() => check({ operations: ["pr"] }, "_")).message).toBe(
      "This key's URLs must be one preset (pr_{name}) and nothing else",
    );
    expect(refusal(() => check(presetsOnly, "pr_hero,w_100")).message).toMatch(/may not sign w:/);
    expect(refusal(() => check(presetsOnly, "pr_banner")).message).toBe("This key may not sign the preset banner");
    // A preset list alone leaves other operations as the project allows them.
    expect(() => check({ presets: ["hero"] }, "w_100,f_webp")).not.toThrow();
  });

  it("holds exp to its longest lifetime, with a minute for clock drift, and requires one", () => {
    const policy = { maxExpirySeconds: 3600 };
    const nowSeconds = NOW / 1000;
    expect(() => check(policy, "w_1", nowSeconds + 3600)).not.toThrow();
    expect(() => check(policy, "w_1", nowSeconds + 3600 + CLOCK_SKEW_SECONDS)).not.toThrow();
    expect(refusal(() => check(policy, "w_1", nowSeconds + 3600 + CLOCK_SKEW_SECONDS + 1)).message).toBe(
      "This key's URLs may expire at most 3600 s ahead",
    );
    expect(refusal(() => check(policy, "w_1")).message).toBe("This key's URLs must carry exp, at most 3600 s ahead");
  });

  it("serves only the pages on its referer list, refused as the project's list refuses", () => {
    const policy = { referers: ["partner.example", "*.cdn.example"] };
    expect(() => check(policy, "w_1", undefined, "https://partner.example/page")).not.toThrow();
    expect(() => check(policy, "w_1", undefined, "https://a.cdn.example/")).not.toThrow();
    for (const referer of [null, "https://shop.example/", "not a url", "ftp://partner.example/"]) {
      expect(refusal(() => check(policy, "w_1", undefined, referer))).toMatchObject({
        code: "REFERER_NOT_ALLOWED",
        status: 403,
      });
    }
  });
});

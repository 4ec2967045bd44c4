import { describe, expect, it } from "vitest";
import { checkKeyPolicy, signUrl, type KeyPolicy } from "../../../packages/client/src/index";
import type { KeyPolicy as ServerKeyPolicy } from "@/lib/schemas/key-policy";
import { enforceKeyPolicy } from "@/server/delivery/key-policy";
import { AppError } from "@/server/errors";
import { parseOperations } from "@/server/image";

/** The kit's KeyPolicy is the server's stored shape, both ways (a compile-time check). */
const toKit = (policy: ServerKeyPolicy): KeyPolicy => policy;
const toServer = (policy: KeyPolicy): ServerKeyPolicy => policy;

const NOW = 1_800_000_000_000;
const open: KeyPolicy = { operations: null, presets: null, maxExpirySeconds: null, referers: [] };
const policies: Record<string, KeyPolicy> = {
  "w and f only": { ...open, operations: ["w", "f"] },
  "no operations": { ...open, operations: [] },
  "presets only": { ...open, operations: ["pr"] },
  "hero or card": { ...open, presets: ["hero", "card"] },
  "an hour at most": { ...open, maxExpirySeconds: 3600 },
};
const urls: Array<[string, number | undefined]> = [
  ["_", undefined],
  ["w_800", undefined],
  ["w_800,f_webp", NOW / 1000 + 600],
  ["w_800,q_50", NOW / 1000 + 600],
  ["pr_hero", NOW / 1000 + 3600],
  ["pr_hero,w_10", undefined],
  ["pr_card,pr_other", undefined],
  ["pr_other", NOW / 1000 + 7200],
];

function serverVerdict(policy: KeyPolicy, operations: string, exp: number | undefined): string | null {
  try {
    const parts = { operationsSegment: operations, operations: parseOperations(operations), exp };
    enforceKeyPolicy({ policy: toServer(policy) }, parts, null, NOW);
    return null;
  } catch (error) {
    if (error instanceof AppError) return error.publicMessage;
    throw error;
  }
}

function kitVerdict(policy: KeyPolicy, operations: string, exp: number | undefined): string | null {
  try {
    checkKeyPolicy(policy, operations, exp, NOW);
    return null;
  } catch (error) {
    if (error instanceof RangeError) return error.message;
    throw error;
  }
}

describe("the kit's key policy check", () => {
  for (const [name, policy] of Object.entries(policies)) {
    it.each(urls)(`${name}: refuses %s (exp %s) as the server does, with its reason`, (operations, exp) => {
      expect(kitVerdict(policy, operations, exp)).toBe(serverVerdict(policy, operations, exp));
    });
  }

  it("keeps a bucketed expiry within the longest the policy allows, and refuses a longer one before signing", async () => {
    const keys = { baseUrl: "https://img.example", projectSlug: "p", publicKey: "pk_x", secretKey: "sk_y" };
    const policy = toKit({ ...open, maxExpirySeconds: 3600 });
    // 3600 s rounded up to its hour would pass the policy's hour: the kit signs exactly an hour instead.
    const now = NOW + 1000;
    const url = new URL(await signUrl({ ...keys, source: "a.jpg", expiresIn: 3600, policy, now }));
    const exp = Number(url.searchParams.get("exp"));
    expect(exp - now / 1000).toBeLessThanOrEqual(3600);
    expect(serverVerdict(policy, "_", exp)).toBeNull();
    await expect(signUrl({ ...keys, source: "a.jpg", expiresIn: 7200, policy, now })).rejects.toThrow(
      "This key's URLs may expire at most 3600 s ahead",
    );
    await expect(signUrl({ ...keys, source: "a.jpg", policy, now })).rejects.toThrow(/must carry exp/);
  });
});
